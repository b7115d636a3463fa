import Foundation
import Logging
internal import PreflightCore
internal import PreflightNIO

/// One run of a connectivity check: the init endpoint, then a ``SignalingClient``, two
/// ``ICEAgentDriver``s (publish, subscribe) and four ``MediaSession``s (audio and video, sent
/// on the publish connection and received on the subscribe connection). One task owns the
/// run's state; the pieces post ``Input``s to it. Every step that fails ends the run with the
/// state reached and the error, and the result keeps what was measured.
struct ConnectivityCheckRun: SessionRun {
    /// Which of the check's two connections.
    enum Input: Sendable {
        case session(SessionInput)
        case videoStarted(PreflightError?)
        case captureTick
        case reportTick
        case iceTimedOut
        case durationReached
        case drained
    }

    let diagnostics: Diagnostics
    let origin: ContinuousClock.Instant
    let signaling: SignalingClient
    let publishICE: ICEAgentDriver
    let subscribeICE: ICEAgentDriver
    let audioOut: MediaSession
    let videoOut: MediaSession
    let audioIn: MediaSession
    let videoIn: MediaSession
    let inputs: AsyncStream<Input>.Continuation
    let offeredCodecs: [String]
    var options: ConnectivityCheckOptions { diagnostics.options }
    /// The run's clock: its stages and timers (the media's packets keep the system's).
    var clock: RunClock { options.clock }
    var logger: Logger { diagnostics.logger }

    var result: ConnectivityCheckResult
    var gathered: [MediaLeg: ICEParameters] = [:]
    var connected: Set<MediaLeg> = []
    var callSid: String?
    var video: any VideoFrameSource
    var captureWaits = 0
    var mediaStarted: ContinuousClock.Instant?
    var mediaEnded: ContinuousClock.Instant?
    var done = false
    /// The host's networks (the publish connection's path): their changes for the result.
    var networks = RunNetworks(edgeOnLoopback: false)

    /// Runs a check, uploads its result (unless stopped or turned off) and returns it.
    static func run(_ diagnostics: Diagnostics, region: String?) async -> ConnectivityCheckResult {
        let result = await perform(diagnostics, region: region)
        let options = diagnostics.options
        if !Task.isCancelled {
            await uploadReport(
                result, kind: .connectivityCheck,
                options: ReportUploadOptions(
                    enabled: options.uploadsReport, edgeURL: options.edge, accessToken: options.accessToken,
                    trustedCertificatesFile: options.edgeTrustedCertificatesFile, signalingTimeout: options.signalingTimeout),
                errorCode: result.errors.first?.code, logger: diagnostics.logger)
        }
        return result
    }

    private static func perform(_ diagnostics: Diagnostics, region: String?) async -> ConnectivityCheckResult {
        let options = diagnostics.options
        // The media path's origin is the system's clock; the duration is the run's clock's.
        let origin = ContinuousClock.now
        let started = options.clock.now
        let startTime = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        var result = initialResult(options: options, startTime: startTime)
        diagnostics.emit(.starting)
        let offeredCodecs: [String]
        let welcome: InitAnswer
        do throws(PreflightError) {
            offeredCodecs = try AudioCodecs.offer(options.preferredAudioCodecs)
            _ = try NetworkFollower.overrides(networkTypes: options.networkTypes)
            _ = try VideoTestPacketizer(bitrate: options.videoBitrate, frameRate: options.videoFrameRate)
            welcome = try await InitClient.fetch(
                edge: options.edge, accessToken: options.accessToken, region: region,
                trustedCertificatesFile: options.edgeTrustedCertificatesFile, timeout: options.signalingTimeout)
        } catch {
            if Task.isCancelled { return cancelled(result) }
            result.errors.append(ReportError(error))
            return result
        }
        result.signallingReport.isInitConnected = true
        result.signallingReport.websocketUrl = welcome.websocketUrl
        result.edge = welcome.edge
        result.state = .initFetched
        diagnostics.emit(.initFetched)
        if Task.isCancelled { return cancelled(result) }

        let (stream, inputs) = AsyncStream<Input>.makeStream()
        let publishICE: ICEAgentDriver
        let subscribeICE: ICEAgentDriver
        do throws(PreflightError) {
            publishICE = try await bind(options, url: welcome.websocketUrl, origin: origin, logger: diagnostics.logger) { inputs.yield(.session(.ice($0, on: .publish))) }
            subscribeICE = try await bind(options, url: welcome.websocketUrl, origin: origin, logger: diagnostics.logger) { inputs.yield(.session(.ice($0, on: .subscribe))) }
        } catch {
            result.errors.append(ReportError(error))
            return result
        }
        let signaling = SignalingClient(
            configuration: SignalingClientConfiguration(
                url: welcome.websocketUrl, accessToken: options.accessToken, trustedCertificatesFile: options.edgeTrustedCertificatesFile,
                timeout: options.signalingTimeout),
            logger: diagnostics.logger)
        let wallOrigin = Double(startTime)
        func session(_ ice: ICEAgentDriver, _ name: String, audioReceived: (@Sendable ([Int16]) -> Void)? = nil) -> MediaSession {
            MediaSession(
                configuration: MediaSessionConfiguration(cname: "preflight-check-\(name)"), origin: origin, wallClockOrigin: wallOrigin,
                transmit: { ice.sendMedia($0) }, audioReceived: audioReceived)
        }
        var played: (@Sendable ([Int16]) -> Void)?
        if let output = options.audioOutput { played = { samples in output.play(samples) } }
        let audioOut = session(publishICE, "audio")
        let videoOut = session(publishICE, "video")
        let audioIn = session(subscribeICE, "audio-in", audioReceived: played)
        let videoIn = session(subscribeICE, "video-in")
        let video: any VideoFrameSource = options.videoInput ?? TestPatternVideoSource()
        var run = ConnectivityCheckRun(
            diagnostics: diagnostics, origin: origin, signaling: signaling, publishICE: publishICE, subscribeICE: subscribeICE,
            audioOut: audioOut, videoOut: videoOut, audioIn: audioIn, videoIn: videoIn, inputs: inputs, offeredCodecs: offeredCodecs,
            result: result, video: video, networks: RunNetworks(edgeOnLoopback: HostInterfaces.isLoopback(url: welcome.websocketUrl)))
        return await withTaskGroup(of: Void.self) { group -> ConnectivityCheckResult in
            group.startSessionLayer(signaling: signaling, ice: [publishICE, subscribeICE], inputs: inputs, wrap: { .session($0) })
            group.followNetworks(
                options.networkSource, drivers: [publishICE, subscribeICE], logger: diagnostics.logger, inputs: inputs, wrap: { .session($0) })
            group.post(.durationReached, to: inputs, after: options.duration - (options.clock.now - started), on: options.clock)
            do throws(PreflightError) {
                try await run.loop(stream, group: &group)
            } catch {
                run.result.errors.append(ReportError(error))
            }
            if !run.done, Task.isCancelled {
                run.result.errors.append(ReportError(PreflightError(code: .cancelled, message: "connectivity check stopped")))
            }
            run.networks.finish(now: RunNetworks.now())
            run.result.networkChanges = run.networks.records.isEmpty ? nil : run.networks.records
            run.finishResult()
            if let callSid = run.callSid { await signaling.hangup(callSid: callSid, reason: run.done ? "completed" : "stopped") }
            run.audioOut.stopSending()
            run.videoOut.stopSending()
            run.video.stop()
            await publishICE.close()
            await subscribeICE.close()
            await signaling.close()
            inputs.finish()
            group.cancelAll()
            return run.result
        }
    }

    mutating func loop(_ stream: AsyncStream<Input>, group: inout TaskGroup<Void>) async throws(PreflightError) {
        for await input in stream {
            if Task.isCancelled { return }
            try await handle(input, group: &group)
            if done { return }
        }
    }

    static func bind(
        _ options: ConnectivityCheckOptions, url: String, origin: ContinuousClock.Instant, logger: Logger,
        events: @escaping @Sendable (ICEAgentDriver.Event) -> Void
    ) async throws(PreflightError) -> ICEAgentDriver {
        try await ICEAgentDriver.bind(
            configuration: ICEAgentDriverConfiguration(
                agent: ICEAgent.Configuration(
                    transportPolicy: options.iceTransportPolicy, gatheringTimeout: options.gatheringTimeout, checkTimeout: options.iceTimeout,
                    wallClockOrigin: Date().timeIntervalSince1970 * 1000, peerName: "the edge"),
                offersLoopback: HostInterfaces.isLoopback(url: url), turnTrustedCertificatesFile: options.turnTrustedCertificatesFile,
                networkTypeOverrides: try NetworkFollower.overrides(networkTypes: options.networkTypes)),
            origin: origin, logger: logger, events: events)
    }

    /// Seconds since ``origin``.
    func seconds(_ instant: ContinuousClock.Instant = .now) -> Double {
        (instant - origin).inSeconds
    }
}

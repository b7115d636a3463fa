import Foundation
import Logging
internal import PreflightCore
internal import PreflightNIO

/// One run of a ``PreflightTest``: a ``SignalingClient`` places the test call, an
/// ``ICEAgentDriver`` connects its media, a ``MediaSession`` sends the test tone and measures
/// what comes back, and this composition turns their events into the test's events and report.
/// One task owns the run's state; the pieces post ``Input``s to it.
struct PreflightTestRun: SessionRun {
    let test: PreflightTest
    let startTime: Int64
    let origin: ContinuousClock.Instant
    let signaling: SignalingClient
    let ice: ICEAgentDriver
    let media: MediaSession
    let inputs: AsyncStream<Input>.Continuation
    /// The invite's codecs: the preferences this build can send.
    let offeredCodecs: [String]
    /// The test's options, with the edge roaming chose.
    let options: PreflightOptions
    var logger: Logger { test.logger }
    /// The run's clock: its stages and timers (the media's packets and samples keep the system's).
    var clock: RunClock { options.clock }

    enum Input: Sendable {
        case session(SessionInput)
        case sampleTick
        case testEnded
        case drained
        case maximumDurationReached
    }

    enum Phase {
        case connecting, gathering, awaitingAnswer, checking, media, ended
    }

    var phase = Phase.connecting
    var callSid: String?
    var callOpen = false
    var edgeName = ""
    var application: String?
    var codec = ""
    var selectedPair: ICECandidatePairStats?
    var timeline: [ConnectionStateEvent] = []
    var warnings = WarningsEngine()
    var samples: [StatsSample] = []
    var timing = NetworkTiming()
    var peerConnected = false
    /// When checking started: the answer's candidates went to the agent.
    var checkingStarted: ContinuousClock.Instant?
    /// Since when the selected pair is silent (agent time); `nil` while connected.
    var disconnectedSince: Double?
    /// Why the selected pair counts as silent (the agent's `disconnected` error).
    var disconnectedBecause: String?
    var lastSample: ContinuousClock.Instant?
    /// When the test's media ended: sending stops, and what is still in flight drains.
    var mediaEnded: ContinuousClock.Instant?
    /// An adaptive test's end: when and why its verdict settled (or that the maximum came first).
    var settlement: VerdictSettlement?
    /// An adaptive test's last judgement before its maximum: what kept it open, for a test the maximum ends.
    var lastJudgement: VerdictJudgement?
    /// The report of the completed test, once complete.
    var completed: PreflightReport?
    /// The host's networks: their changes for the report.
    var networks: RunNetworks
    /// The path diagnosis, once media started (``PreflightOptions/pathDiagnosis``), and what its
    /// probing saw once finished.
    var pathDiagnosis: PathDiagnosisRun?
    var pathOutcome: PathProbeOutcome?

    /// Runs the test and finishes it with its report or error.
    static func run(_ test: PreflightTest, startTime: Int64) async {
        let outcome: Result<PreflightReport, PreflightError>
        var options = test.options
        var selection: EdgeSelection?
        do {
            switch options.edge {
            case .url(let url)?:
                options.edgeURL = url
            case .roaming(let urls)?:
                let (chosen, url) = try await EdgeRoaming.select(
                    urls, accessToken: options.accessToken, trustedCertificatesFile: options.edgeTrustedCertificatesFile,
                    timeout: min(options.signalingTimeout, .seconds(5)), logger: test.logger)
                options.edgeURL = url
                selection = chosen
            case nil:
                break
            }
            outcome = .success(try await perform(test, options: options, startTime: startTime))
        } catch {
            outcome = .failure(Task.isCancelled && error.code != .cancelled
                ? PreflightError(code: .cancelled, message: "preflight test cancelled", underlying: error) : error)
        }
        // The report is assembled once, here; the selection goes in it whatever the outcome.
        let end = PreflightTest.nowMilliseconds()
        var report = test.finalReport(outcome, end: end)
        report.edgeSelection = selection
        // The upload comes before the result is delivered: whoever reads the edge's API after
        // `result()` finds the report there.
        if !test.isFinished {
            await uploadReport(report, kind: .preflightTest, options: ReportUploadOptions(options), errorCode: report.error?.code, logger: test.logger)
        }
        test.finish(outcome, report: report, end: end)
    }

    private static func perform(_ test: PreflightTest, options: PreflightOptions, startTime: Int64) async throws(PreflightError) -> PreflightReport {
        if !options.fakeMicInput, options.audioInput == nil {
            throw PreflightError(code: .invalidArgument, message: "fakeMicInput is false but no audioInput was given")
        }
        let networkTypeOverrides = try NetworkFollower.overrides(networkTypes: options.networkTypes)
        _ = try options.pathDiagnosis?.verdictConfiguration()
        // An adaptive test needs two samples to judge; an hour is the longest any test runs.
        let shortest: Duration = options.duration.isAdaptive ? .seconds(2) : .milliseconds(1)
        guard options.duration.maximum >= shortest, options.duration.maximum <= .seconds(3600) else {
            throw PreflightError(
                code: .invalidArgument,
                message: "the test's duration must be \(options.duration.isAdaptive ? "2 s" : "above 0") to 3600 s, got \(options.duration.maximum)")
        }
        let offeredCodecs = try AudioCodecs.offer(options.preferredAudioCodecs)
        // The media path's origin is the system's clock (its packets' own), whatever the run's.
        let origin = ContinuousClock.now
        let (stream, inputs) = AsyncStream<Input>.makeStream()
        let ice = try await ICEAgentDriver.bind(
            configuration: ICEAgentDriverConfiguration(
                agent: ICEAgent.Configuration(
                    transportPolicy: options.iceTransportPolicy, gatheringTimeout: options.gatheringTimeout,
                    checkTimeout: options.iceTimeout, disconnectTimeout: options.mediaTimeout,
                    consentTimeout: options.consentTimeout, wallClockOrigin: Double(startTime), peerName: "the edge"),
                offersLoopback: HostInterfaces.isLoopback(url: options.edgeURL),
                turnTrustedCertificatesFile: options.turnTrustedCertificatesFile, networkTypeOverrides: networkTypeOverrides),
            origin: origin, logger: test.logger, events: { inputs.yield(.session(.ice($0, on: .main))) })
        let signaling = SignalingClient(
            configuration: SignalingClientConfiguration(
                url: options.edgeURL, accessToken: options.accessToken,
                trustedCertificatesFile: options.edgeTrustedCertificatesFile, timeout: options.signalingTimeout),
            logger: test.logger)
        let audioReceived: (@Sendable ([Int16]) -> Void)?
        if let output = options.audioOutput {
            audioReceived = { samples in output.play(samples) }
        } else {
            audioReceived = nil
        }
        let media = MediaSession(
            configuration: MediaSessionConfiguration(
                cname: "preflight-\(ice.localUfrag)", countsReorderedAsLost: options.countsReorderedAsLost),
            origin: origin, wallClockOrigin: Double(startTime), eventLoop: ice.eventLoop, transmit: { ice.sendMedia($0) },
            audioReceived: audioReceived)
        ice.receiveMedia { media.receive($0) }
        let outcome = await withTaskGroup(of: Void.self) { group -> Result<PreflightReport, PreflightError> in
            group.startSessionLayer(signaling: signaling, ice: [ice], inputs: inputs, wrap: { .session($0) })
            group.followNetworks(options.networkSource, drivers: [ice], logger: test.logger, inputs: inputs, wrap: { .session($0) })
            var run = PreflightTestRun(
                test: test, startTime: startTime, origin: origin, signaling: signaling, ice: ice, media: media, inputs: inputs,
                offeredCodecs: offeredCodecs, options: options,
                networks: RunNetworks(edgeOnLoopback: HostInterfaces.isLoopback(url: options.edgeURL)))
            let result: Result<PreflightReport, PreflightError>
            do throws(PreflightError) {
                result = .success(try await run.loop(stream, group: &group))
            } catch {
                // The partial report keeps the states up to the failure, and what the path's probes saw.
                await run.finishPathDiagnosis()
                run.networks.finish(now: PreflightTest.nowMilliseconds())
                run.closeTimeline()
                run.publish()
                result = .failure(error)
            }
            // Hang up politely when the call is still up, then tear everything down.
            if let callSid = run.callSid, run.callOpen { await signaling.hangup(callSid: callSid, reason: result.reason) }
            media.stopSending()
            await ice.close()
            await signaling.close()
            inputs.finish()
            group.cancelAll()
            return result
        }
        return try outcome.get()
    }

    mutating func loop(_ stream: AsyncStream<Input>, group: inout TaskGroup<Void>) async throws(PreflightError) -> PreflightReport {
        for await input in stream {
            if Task.isCancelled { break }
            try await handle(input, group: &group)
            if completed != nil {
                await finishPathDiagnosis()
                if let diagnosis = pathDiagnosis, let outcome = pathOutcome, let report = completed {
                    completed?.pathDiagnosis = diagnosis.diagnosis(outcome, report: report)
                }
                if let completed { return completed }
            }
        }
        throw PreflightError(code: .cancelled, message: "preflight test cancelled")
    }

    /// Stops the path's probing, if any, and keeps what it saw.
    mutating func finishPathDiagnosis() async {
        guard let pathDiagnosis, pathOutcome == nil else { return }
        pathOutcome = await pathDiagnosis.finish()
    }

    // MARK: Clock

    func wallTime(_ instant: ContinuousClock.Instant) -> Int64 {
        Int64(media.wallMilliseconds(instant).rounded(.down))
    }

    /// The wall-clock time of an instant of the ICE agent's clock (seconds since ``origin``).
    func wallTime(agentTime seconds: Double) -> Int64 {
        wallTime(origin + .nanoseconds(Int64(max(0, min(seconds, 1e9)) * 1e9)))
    }
}

extension Result<PreflightReport, PreflightError> {
    fileprivate var reason: String {
        switch self {
        case .success: "completed"
        case .failure(let error): "error \(error.code): \(error.message)"
        }
    }
}

import Foundation
import Logging
internal import PreflightCore
internal import PreflightNIO

/// One run of a ``LastmileProbe``: a ``SignalingClient`` asks the edge for a probe, an
/// ``ICEAgentDriver`` connects the media path, then pings measure the RTT and each direction is
/// probed in turn (uplink first): the client sends the uplink's packets and the edge returns their
/// arrival records; the edge sends the downlink's trains at the rates the client asks for. One task
/// owns the run's state; the pieces post ``Input``s to it.
struct LastmileProbeRun: SessionRun {
    let probe: LastmileProbe
    let config: LastmileProbeConfig
    let origin: ContinuousClock.Instant
    let signaling: SignalingClient
    let ice: ICEAgentDriver
    let inputs: AsyncStream<Input>.Continuation
    /// Signaling messages to send, in order, by one task.
    let outbox: AsyncStream<SignalingMessage>.Continuation
    var options: LastmileProbeOptions { probe.options }
    /// The run's clock: its ticks and timeouts. The bandwidth controller's time (``seconds(_:)``)
    /// stays the system's: it is the packets' own, which the probe measures.
    var clock: RunClock { options.clock }
    var logger: Logger { probe.logger }

    enum Input: Sendable {
        case session(SessionInput)
        case control
        case quality
        case iceTimedOut
    }

    enum Phase: Equatable {
        case connecting, gathering, awaitingAnswer, checking, pinging, probing, done
    }

    /// Pings that measure the RTT before the first train, and how long to wait for them.
    static let pings = 5
    static let pingInterval = 0.06
    static let pingWait = 0.4
    /// While a direction runs, a ping every this many seconds keeps the edge hearing the client.
    static let heartbeat = 0.5
    /// A direction is over when its sender stopped and nothing arrived for this long (or 1.2 s passed).
    static let drainQuiet = 0.25
    static let drainLimit = 1.2
    /// How long one downlink train request lasts unless renewed, milliseconds.
    static let trainDuration = 400

    var phase = Phase.connecting
    var edgeName = ""
    var callSid: String?
    var loopback = false
    var overhead = 42
    var ssrc = UInt32.random(in: 1...UInt32.max)
    var pingSequence: UInt16 = 0
    var pingsSent = 0
    var pingStart: Double?
    var lastPing = 0.0
    var quietRTTs: [Double] = []
    var rtts: [Double] = []
    var pending: [ProbeDirection.Way] = []
    var current: ProbeDirection?
    var finished: [ProbeDirection.Way: LastmileProbeOneWayResult] = [:]
    var qualities: [LastmileQualitySample] = []
    var packetsInWindow = 0
    var connected = false
    /// The host's networks: their changes for the result.
    var networks = RunNetworks(edgeOnLoopback: false)

    /// Runs the probe and finishes it with its result.
    static func run(_ probe: LastmileProbe, config: LastmileProbeConfig) async {
        let origin = ContinuousClock.now
        let options = probe.options
        let (stream, inputs) = AsyncStream<Input>.makeStream()
        let (outgoing, outbox) = AsyncStream<SignalingMessage>.makeStream()
        let ice: ICEAgentDriver
        do {
            let networkTypeOverrides = try NetworkFollower.overrides(networkTypes: options.networkTypes)
            ice = try await ICEAgentDriver.bind(
                configuration: ICEAgentDriverConfiguration(
                    agent: ICEAgent.Configuration(
                        transportPolicy: options.iceTransportPolicy, gatheringTimeout: options.gatheringTimeout,
                        checkTimeout: options.iceTimeout, wallClockOrigin: Date().timeIntervalSince1970 * 1000, peerName: "the edge"),
                    offersLoopback: HostInterfaces.isLoopback(url: options.edgeURL),
                    turnTrustedCertificatesFile: options.turnTrustedCertificatesFile, receiveBufferSize: options.receiveBufferSize,
                    networkTypeOverrides: networkTypeOverrides),
                origin: origin, logger: probe.logger, events: { inputs.yield(.session(.ice($0, on: .main))) })
        } catch {
            probe.finish(LastmileProbeResult(state: .unavailable, error: ReportError(error)), error: error)
            return
        }
        let signaling = SignalingClient(
            configuration: SignalingClientConfiguration(
                url: options.edgeURL, accessToken: options.accessToken, trustedCertificatesFile: options.edgeTrustedCertificatesFile,
                timeout: options.signalingTimeout),
            logger: probe.logger)
        var run = LastmileProbeRun(
            probe: probe, config: config, origin: origin, signaling: signaling, ice: ice, inputs: inputs, outbox: outbox)
        run.loopback = HostInterfaces.isLoopback(url: options.edgeURL)
        run.networks = RunNetworks(edgeOnLoopback: run.loopback)
        if config.probeUplink { run.pending.append(.uplink) }
        if config.probeDownlink { run.pending.append(.downlink) }
        let (result, error) = await withTaskGroup(of: Void.self) { group -> (LastmileProbeResult, PreflightError?) in
            group.startSessionLayer(signaling: signaling, ice: [ice], inputs: inputs, wrap: { .session($0) })
            group.followNetworks(options.networkSource, drivers: [ice], logger: probe.logger, inputs: inputs, wrap: { .session($0) })
            group.addTask { for await message in outgoing { try? await signaling.send(message) } }
            group.post(.control, to: inputs, every: .milliseconds(20), on: options.clock)
            group.post(.quality, to: inputs, every: .seconds(2), on: options.clock)
            var error: PreflightError?
            do throws(PreflightError) {
                try await run.loop(stream, group: &group)
            } catch let failure {
                error = failure
            }
            if error == nil, run.phase != .done {
                error = PreflightError(code: .cancelled, message: "last-mile probe stopped")
            }
            let result = run.result(error: error)
            if let callSid = run.callSid { await signaling.hangup(callSid: callSid, reason: error == nil ? "completed" : "stopped") }
            await ice.close()
            await signaling.close()
            outbox.finish()
            inputs.finish()
            group.cancelAll()
            return (result, error)
        }
        if !Task.isCancelled {
            await uploadReport(
                result, kind: .lastmileProbe,
                options: ReportUploadOptions(
                    enabled: options.uploadsReport, edgeURL: options.edgeURL, accessToken: options.accessToken,
                    trustedCertificatesFile: options.edgeTrustedCertificatesFile, signalingTimeout: options.signalingTimeout),
                errorCode: result.error?.code, logger: probe.logger)
        }
        probe.finish(result, error: error)
    }

    mutating func loop(_ stream: AsyncStream<Input>, group: inout TaskGroup<Void>) async throws(PreflightError) {
        for await input in stream {
            if Task.isCancelled || probe.isStopped { return }
            try await handle(input, group: &group)
            if phase == .done { return }
        }
    }

    /// Seconds since ``origin``.
    func seconds(_ instant: ContinuousClock.Instant = .now) -> Double {
        (instant - origin).inSeconds
    }
}

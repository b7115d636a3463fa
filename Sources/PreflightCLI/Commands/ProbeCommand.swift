import ArgumentParser
import Foundation
import Logging
@_spi(Testing) import Preflight
import PreflightCore
import PreflightEdge

/// `preflight probe`: Agora's last-mile probe test: each direction's available bandwidth, loss
/// and jitter, and the RTT to the edge.
public struct ProbeCommand: AsyncParsableCommand, Sendable {
    /// The subcommand's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Measure the uplink's and the downlink's available bandwidth (the last-mile probe).",
        discussion: """
            Probes the uplink, then the downlink (or only the one asked for) with rate-stepped packet \
            trains up to 1.5 × the expected bitrate, in about 3 to 5 s per direction. A line every 2 s \
            shows the network quality (Agora's 0-8 scale), then the result (or, with --json, its JSON \
            on standard output). Bandwidth counts what a bottleneck counts: UDP payload plus 42 bytes \
            of headers per IPv4 packet. Without --edge-url an edge starts in this process on loopback: \
            the figures are then this host's, not a network's. --token needs an outgoing application, \
            as every session on the edge does (e.g. `preflight token --application echo`); the probe \
            does not call it. Exits 0 with a result (even without a \
            bandwidth estimate: see its state), 1 with "error <code>: <message>" when the probe could not run.
            """
    )

    /// The edge, its token, its CA file and the signaling timeout.
    @OptionGroup(title: "Edge")
    public var connection: EdgeConnectionOptions

    /// Probe only the uplink.
    @Flag(help: "Probe only the uplink.")
    public var uplink = false
    /// Probe only the downlink.
    @Flag(help: "Probe only the downlink.")
    public var downlink = false

    /// The expected uplink bitrate.
    @Option(name: .customLong("expected-up"), help: "The uplink bitrate you expect to need, bps (100000-5000000; default 5000000).")
    public var expectedUp: Int = LastmileProbeConfig.maximumBitrate
    /// The expected downlink bitrate.
    @Option(name: .customLong("expected-down"), help: "The downlink bitrate you expect to need, bps (100000-5000000; default 5000000).")
    public var expectedDown: Int = LastmileProbeConfig.maximumBitrate

    /// Extra STUN/TURN servers and their TURN credentials.
    @OptionGroup(title: "ICE servers")
    public var iceServerOptions: ICEServerOptions
    /// Which candidates ICE may use.
    @Option(name: .customLong("ice-transport-policy"), help: "all, or relay to probe through TURN.")
    public var iceTransportPolicy: ICETransportPolicy = .all

    /// Print the JSON result.
    @Flag(help: "Print the JSON result on standard output (the quality lines go to standard error).")
    public var json = false

    /// A deliberately wrong measurement, for the accuracy benchmark's self-check only.
    @Option(name: .customLong("measurement-fault"), help: .hidden)
    public var measurementFault: MeasurementFault?

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// Checks the arguments' combinations; the bitrates' range is the SDK's (a coded error, 70301).
    public mutating func validate() throws {
        try connection.requireTogether()
        if uplink, downlink { throw ValidationError("--uplink and --downlink each probe one direction; give neither for both") }
        if let measurementFault, !measurementFault.isProbeFault {
            throw ValidationError("--measurement-fault \(measurementFault.rawValue) is for preflight run")
        }
    }

    /// What was asked: both directions unless one was named.
    public var probeConfig: LastmileProbeConfig {
        LastmileProbeConfig(
            probeUplink: !downlink, probeDownlink: !uplink, expectedUplinkBitrate: expectedUp, expectedDownlinkBitrate: expectedDown)
    }

    /// Runs the probe and prints its quality lines and result.
    public func run() async throws {
        let outcome = await execute { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        } output: { text in
            print(text)
        }
        if let error = outcome.error { throw CommandFailure(error) }
    }

    /// What a run produced: the result, and the error when the probe could not run at all.
    public struct Outcome: Sendable {
        /// The result (state `unavailable` when the probe could not run).
        public var result: LastmileProbeResult
        /// Why the probe could not run, if it could not.
        public var error: PreflightError?
    }

    /// Runs the probe; `progress` receives the quality lines (and, without `--json`, so does the
    /// result via `output`).
    public func execute(progress: @escaping @Sendable (String) -> Void, output: @escaping @Sendable (String) -> Void) async -> Outcome {
        let live: @Sendable (String) -> Void = json ? progress : output
        do {
            try probeConfig.validate()
            let iceServers = try iceServerOptions.servers(environment: ProcessInfo.processInfo.environment)
            if let remote = connection.remote {
                return await probe(edgeURL: remote.edgeURL, token: remote.token, iceServers: iceServers, live: live, output: output)
            }
            return try await LocalEdge.withRunning { local in
                let token = try await local.token()
                live("preflight: local edge at \(local.signalingURL) (loopback: the figures are this host's, not a network's)")
                return await probe(edgeURL: local.signalingURL, token: token, iceServers: iceServers, live: live, output: output)
            }
        } catch {
            let failure = (error as? PreflightError) ?? (error as? CommandFailure)?.error
                ?? PreflightError(code: .invalidArgument, message: "\(error)", underlying: error)
            return Outcome(result: LastmileProbeResult(error: ReportError(failure)), error: failure)
        }
    }

    private func probe(
        edgeURL: String, token: String, iceServers: [ICEServer], live: @escaping @Sendable (String) -> Void,
        output: @escaping @Sendable (String) -> Void
    ) async -> Outcome {
        var options = LastmileProbeOptions(
            accessToken: token, edgeURL: edgeURL, signalingTimeout: connection.timeout, iceServers: iceServers,
            iceTransportPolicy: iceTransportPolicy, edgeTrustedCertificatesFile: connection.edgeCAFile)
        options.averagesWholeTrain = measurementFault == .wholeTrain
        options.countsPayloadOnly = measurementFault == .payloadBytes
        let probe = LastmileProbe(options: options)
        let events = probe.events()
        do {
            try probe.start(config: probeConfig)
        } catch {
            return Outcome(result: LastmileProbeResult(error: ReportError(error)), error: error)
        }
        // Cancelling this command (Ctrl-C; a parent task's cancellation) stops the probe.
        return await withTaskCancellationHandler {
            var seconds = 0
            for await event in events {
                switch event {
                case .lastmileQuality(let quality):
                    seconds += 2
                    live(ProbeText.qualityLine(second: seconds, quality: quality))
                case .lastmileProbeResult(let result):
                    output(json ? ProbeText.json(result) : ProbeText.summary(result))
                    // Unavailable with an error: the probe could not run (exit 1). A result without
                    // an estimate is still a result (exit 0; its state says so).
                    let error = result.state == .unavailable ? result.error.map { PreflightError(code: .init($0.code), message: $0.message) } : nil
                    return Outcome(result: result, error: error)
                }
            }
            return Outcome(result: LastmileProbeResult(), error: PreflightError(code: .cancelled, message: "probe ended without a result"))
        } onCancel: {
            probe.stop()
        }
    }
}

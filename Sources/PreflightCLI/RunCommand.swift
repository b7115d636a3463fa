import ArgumentParser
import Foundation
import Logging
@_spi(Testing) import Preflight
import PreflightCore
import PreflightEdge
import PreflightTesting

/// `preflight run` (the default): runs a preflight test call and shows its progress and report.
public struct RunCommand: AsyncParsableCommand, Sendable {
    /// The subcommand's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a preflight test call (default: against an embedded edge on 127.0.0.1).",
        discussion: """
            Without --edge, an edge starts in this process on ephemeral loopback ports and a token is \
            minted for it. With --edge and --token, the test runs against a deployed edge. A line per \
            second shows RTT, jitter, loss, MOS and active warnings; a summary (or, with --json, the \
            JSON report) follows. Exits 0 when the test completed, 1 with "error <code>: <message>" \
            when it failed (with --json the partial report is still printed).
            """
    )

    /// The edge's signaling URL.
    @Option(help: "The edge's signaling URL (wss://host:port/signaling, or ws:// on loopback). Default: an embedded edge.")
    public var edge: String?

    /// The access token.
    @Option(help: "The access token for --edge (see `preflight token`).")
    public var token: String?

    /// Seconds of media for the echo application.
    @Option(help: "Seconds of media in an echo test (1-300).")
    public var duration: Int = 10

    /// The embedded edge's application.
    @Option(help: "The embedded edge's test application: echo or record-playback.")
    public var app: TestApplication = .echo

    /// Preferred codec.
    @Option(help: "The audio codec to offer.")
    public var codec: String = "PCMU"

    /// Seconds allowed for signaling.
    @Option(name: .customLong("signaling-timeout"), help: "Seconds allowed to connect and set up the call.")
    public var signalingTimeout: Int = 10

    /// Extra STUN/TURN servers.
    @Option(name: .customLong("ice-server"), help: "An extra STUN/TURN URL to gather from, beside the edge's (repeatable).")
    public var iceServers: [String] = []
    /// Username for the extra TURN servers.
    @Option(name: .customLong("turn-username"), help: "The username for the --ice-server TURN servers.")
    public var turnUsername: String?
    /// Credential for the extra TURN servers.
    @Option(name: .customLong("turn-credential"), help: "The credential for the --ice-server TURN servers.")
    public var turnCredential: String?
    /// Which candidates ICE may use.
    @Option(name: .customLong("ice-transport-policy"), help: "all, or relay to force media through TURN.")
    public var iceTransportPolicy: ICETransportPolicy = .all
    /// Seconds allowed for ICE checks.
    @Option(name: .customLong("ice-timeout"), help: "Seconds allowed for ICE connectivity checks (default 5).")
    public var iceTimeout: Double = 5
    /// Seconds allowed for gathering.
    @Option(name: .customLong("gathering-timeout"), help: "Seconds allowed to gather candidates from STUN/TURN servers (default 3).")
    public var gatheringTimeout: Double = 3
    /// Seconds without anything from the edge before reconnecting.
    @Option(name: .customLong("media-timeout"), help: "Seconds without media before the connection counts as lost and reconnects (default 2.5).")
    public var mediaTimeout: Double = 2.5
    /// Seconds the selected pair may go without consent.
    @Option(name: .customLong("consent-timeout"), help: "Seconds without an answer to consent checks before the test fails (default 30, RFC 7675).")
    public var consentTimeout: Double = 30
    /// Extra trusted certificates for TURN over TLS.
    @Option(name: .customLong("turn-ca-file"), help: "A PEM file of certificates to trust for turns: servers.")
    public var turnCAFile: String?

    /// Extra trusted certificates for a wss:// edge.
    @Option(
        name: .customLong("edge-ca-file"),
        help: "A PEM file of CA certificates to trust for a wss:// --edge besides the system's (a private or self-signed edge certificate).")
    public var edgeCAFile: String?

    /// Print the JSON report instead of the summary.
    @Flag(help: "Print the JSON report on standard output instead of the summary (progress goes to standard error).")
    public var json = false

    /// A deliberately wrong measurement, for the accuracy benchmark's self-check only.
    @Option(name: .customLong("measurement-fault"), help: .hidden)
    public var measurementFault: MeasurementFault?

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// Checks the arguments before running.
    public func validate() throws {
        guard (1...300).contains(duration) else { throw ValidationError("--duration must be 1 to 300 seconds, got \(duration)") }
        guard (1...120).contains(signalingTimeout) else {
            throw ValidationError("--signaling-timeout must be 1 to 120 seconds, got \(signalingTimeout)")
        }
        if (edge == nil) != (token == nil) { throw ValidationError("--edge and --token go together") }
        for url in iceServers {
            do { _ = try ICEServerURL(url) } catch { throw ValidationError("--ice-server: \(error.message)") }
        }
        for (name, value) in [("--ice-timeout", iceTimeout), ("--gathering-timeout", gatheringTimeout), ("--media-timeout", mediaTimeout), ("--consent-timeout", consentTimeout)] {
            guard value > 0, value <= 300 else { throw ValidationError("\(name) must be more than 0 and at most 300 seconds, got \(value)") }
        }
    }

    /// Runs the test and prints its progress and result.
    public func run() async throws {
        let outcome = await execute { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        } output: { text in
            print(text)
        }
        if let error = outcome.error { throw CommandFailure(error) }
    }

    /// What a run produced.
    public struct Outcome: Sendable {
        /// The report (partial when the test failed).
        public var report: PreflightReport
        /// Why the test failed, if it did.
        public var error: PreflightError?
    }

    /// Runs the test; `progress` receives the per-second lines (and, without `--json`, so does
    /// the summary via `output`).
    public func execute(progress: @escaping @Sendable (String) -> Void, output: @escaping @Sendable (String) -> Void) async -> Outcome {
        let live: @Sendable (String) -> Void = json ? progress : output
        if let edge, let token {
            return await test(edgeURL: edge, token: token, live: live, output: output)
        }
        do {
            return try await EmbeddedEdge.withRunning { embedded in
                let token = try await embedded.token(application: app)
                live("preflight: embedded edge at \(embedded.signalingURL), application \(app.rawValue)")
                return await test(edgeURL: embedded.signalingURL, token: token, live: live, output: output)
            }
        } catch {
            let failure = (error as? PreflightError)
                ?? PreflightError(code: .invalidArgument, message: "cannot start the embedded edge", underlying: error)
            return Outcome(report: PreflightReport(), error: failure)
        }
    }

    private func test(
        edgeURL: String, token: String, live: @escaping @Sendable (String) -> Void, output: @escaping @Sendable (String) -> Void
    ) async -> Outcome {
        var options = PreflightOptions(
            accessToken: token, edgeURL: edgeURL, preferredAudioCodecs: [codec], duration: .seconds(duration),
            signalingTimeout: .seconds(signalingTimeout), iceTimeout: .milliseconds(Int64(iceTimeout * 1000)),
            mediaTimeout: .milliseconds(Int64(mediaTimeout * 1000)),
            iceServers: iceServers.isEmpty ? [] : [ICEServer(urls: iceServers, username: turnUsername, credential: turnCredential)],
            iceTransportPolicy: iceTransportPolicy, gatheringTimeout: .milliseconds(Int64(gatheringTimeout * 1000)),
            consentTimeout: .milliseconds(Int64(consentTimeout * 1000)), turnTrustedCertificatesFile: turnCAFile,
            edgeTrustedCertificatesFile: edgeCAFile)
        if measurementFault == .reorderAsLost { options.countsReorderedAsLost = true }
        let test = PreflightTest.run(options: options)
        var warnings: Set<QualityWarning> = []
        var seconds = 0
        // Cancelling this command (Ctrl-C ends the process; a parent task's cancellation lands here) stops the test.
        return await withTaskCancellationHandler {
            for await event in test.events() {
                switch event {
                case .connected:
                    live("connected: call \(test.callSid ?? "?")")
                case .sample(let sample):
                    seconds += 1
                    live(ReportText.progressLine(second: seconds, sample: sample, warnings: warnings))
                case .qualityWarnings(let current, _):
                    warnings = current
                case .reconnecting(let error):
                    live("reconnecting: \(error.message)")
                case .reconnected:
                    live("reconnected")
                case .completed(let report):
                    output(json ? ReportText.json(report) : ReportText.summary(report))
                    return Outcome(report: report, error: nil)
                case .failed(let error, let partial):
                    if json { output(ReportText.json(partial)) }
                    return Outcome(report: partial, error: error)
                }
            }
            return Outcome(report: test.partialReport, error: PreflightError(code: .cancelled, message: "preflight test ended without a result"))
        } onCancel: {
            test.stop()
        }
    }
}

extension TestApplication: ExpressibleByArgument {}

extension ICETransportPolicy: ExpressibleByArgument {}

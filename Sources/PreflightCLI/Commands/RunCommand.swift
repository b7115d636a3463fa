import ArgumentParser
import Foundation
import Logging
@_spi(Testing) import Preflight
import PreflightCore
import PreflightHTML
import PreflightEdge

/// `preflight run` (the default): runs a preflight test call and shows its progress and report.
public struct RunCommand: AsyncParsableCommand, Sendable {
    /// The subcommand's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a preflight test call (default: against a local edge on 127.0.0.1).",
        discussion: """
            Without --edge-url, an edge starts in this process on ephemeral loopback ports and a token \
            is minted for it. With --edge-url and --token, the test runs against a deployed edge. A line per \
            second shows RTT, jitter, loss, MOS and active warnings; a summary (or, with --json, the \
            JSON report) follows. Exits 0 when the test completed, 1 with "error <code>: <message>" \
            when it failed (with --json the partial report is still printed).
            """
    )

    /// The edge, its token, its CA file and the signaling timeout.
    @OptionGroup(title: "Edge")
    public var connection: EdgeConnectionOptions

    /// Seconds of media for the echo application, or `adaptive[:MAX]`.
    @Option(help: ArgumentHelp(
        "Seconds of media in an echo test (1-300), or adaptive[:MAX]: end as soon as the verdict is settled, at MAX seconds (2-300, default 30) at the latest.",
        valueName: "seconds|adaptive[:max]"))
    public var duration: String = "10"

    /// With an adaptive duration: go on to the maximum after the verdict settles (the benchmark's mode).
    @Flag(help: ArgumentHelp(
        "With --duration adaptive[:MAX]: go on to MAX after the verdict settles, recording when and on what it settled (the report's verdictSettlement); the report's verdict is MAX's. For checking the stopping rule."))
    public var continueAfterSettling = false

    /// The local edge's test application (with ``edgeURL`` the token's grant chooses it).
    @Option(help: "The local edge's test application: echo (default) or record-playback. With --edge-url the token chooses it.")
    public var application: TestApplication?

    /// The codecs to offer, by preference, comma-separated.
    @Option(help: "The audio codecs to offer by preference, comma-separated: PCMU (default), opus, or opus,PCMU.")
    public var codec: String = "PCMU"


    /// Extra STUN/TURN servers and their TURN credentials.
    @OptionGroup(title: "ICE servers")
    public var iceServerOptions: ICEServerOptions
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

    /// Print the JSON report instead of the summary.
    @Flag(help: "Print the JSON report on standard output instead of the summary (progress goes to standard error).")
    public var json = false

    /// Edges to choose among by RTT.
    @Option(
        name: .customLong("roaming"),
        help: "An edge to choose among (repeat it): the test runs against the one with the lowest STUN round-trip time (with --token, instead of --edge-url).")
    public var roaming: [String] = []

    /// Where to write the report's HTML page.
    @Option(help: "Also write the report as a self-contained HTML page to this file (the partial report when the test failed).")
    public var html: String?

    /// Whether the report is uploaded to the edge.
    @Flag(name: .customLong("no-upload"), help: "Do not upload the report to the edge when the test ends.")
    public var noUpload = false

    /// A deliberately wrong measurement, for the accuracy benchmark's self-check only.
    @Option(name: .customLong("measurement-fault"), help: .hidden)
    public var measurementFault: MeasurementFault?

    /// `--app`, the old spelling of `--application` (hidden; ``validate()`` moves it to ``application``).
    @Option(name: .customLong("app"), help: .hidden)
    var applicationOldSpelling: TestApplication?

    /// Real audio instead of the test signal.
    @OptionGroup(title: "Audio (instead of the test signal)")
    public var audioOptions: TestAudioOptions

    /// The type of named interfaces, for the network changes the test records.
    @OptionGroup(title: "Networks")
    public var networkTypes: NetworkTypeOption

    /// `--diagnose-path` and its settings.
    @OptionGroup(title: "Path diagnosis")
    public var path: PathDiagnosisArguments

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// Checks the arguments before running; each `ValidationError` names its rule.
    public mutating func validate() throws {
        application = try OldSpelling.merge(applicationOldSpelling, into: application, oldName: "--app", newName: "--application")
        applicationOldSpelling = nil
        let testDuration = try testDuration()
        if continueAfterSettling, !testDuration.isAdaptive {
            throw ValidationError("--continue-after-settling needs --duration adaptive[:MAX]")
        }
        if !roaming.isEmpty {
            guard connection.edgeURL == nil, connection.token != nil else { throw ValidationError("--roaming takes --token and no --edge-url") }
            guard roaming.count <= 16 else { throw ValidationError("--roaming: at most 16 edges, got \(roaming.count)") }
        } else {
            try connection.requireTogether()
        }
        if let measurementFault, measurementFault.isProbeFault {
            throw ValidationError("--measurement-fault \(measurementFault.rawValue) is for preflight probe")
        }
        if connection.edgeURL != nil, application != nil {
            throw ValidationError("--application chooses the local edge's application; with --edge-url the token's grant chooses it")
        }
        if iceServerOptions.givesTURNCredentials, !ICEServerOptions.containsTURN(iceServerOptions.iceServers) {
            throw ValidationError("TURN credentials (--turn-username, --turn-secret-file) need a turn: or turns: --ice-server")
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
        if let html {
            do {
                try Data(ReportHTML.render(outcome.report).utf8).write(to: URL(fileURLWithPath: html))
                FileHandle.standardError.write(Data("report page written to \(html)\n".utf8))
            } catch {
                throw CommandFailure(PreflightError(code: .fileUnwritable, message: "--html: cannot write \(html)", underlying: error))
            }
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
        let iceServers: [ICEServer]
        do {
            iceServers = try extraICEServers(environment: ProcessInfo.processInfo.environment)
        } catch {
            let failure = (error as? CommandFailure)?.error
                ?? PreflightError(code: .invalidArgument, message: "\(error)", underlying: error)
            return Outcome(report: PreflightReport(), error: failure)
        }
        if let first = roaming.first, let token = connection.token {
            return await test(edgeURL: first, token: token, iceServers: iceServers, live: live, output: output)
        }
        if let remote = connection.remote {
            return await test(edgeURL: remote.edgeURL, token: remote.token, iceServers: iceServers, live: live, output: output)
        }
        let application = application ?? .echo
        do {
            return try await LocalEdge.withRunning { local in
                let token = try await local.token(application: application)
                live("preflight: local edge at \(local.signalingURL), application \(application.rawValue)")
                return await test(edgeURL: local.signalingURL, token: token, iceServers: iceServers, live: live, output: output)
            }
        } catch {
            let failure = (error as? PreflightError)
                ?? PreflightError(code: .invalidArgument, message: "cannot start the local edge", underlying: error)
            return Outcome(report: PreflightReport(), error: failure)
        }
    }

    /// The `--ice-server` entries with their TURN credentials: the fixed ones, or ones made from
    /// the TURN secret for one hour (coturn's "TURN REST API", ``TURNRESTCredentials``).
    /// - Parameter environment: where `PREFLIGHT_TURN_SECRET` is read.
    /// - Throws: ``CommandFailure`` (70005) for a TURN secret file that cannot be read or an empty secret.
    public func extraICEServers(environment: [String: String]) throws -> [ICEServer] {
        try iceServerOptions.servers(environment: environment)
    }

    private func test(
        edgeURL: String, token: String, iceServers: [ICEServer], live: @escaping @Sendable (String) -> Void, output: @escaping @Sendable (String) -> Void
    ) async -> Outcome {
        let audio: TestAudioOptions.Opened
        do {
            audio = try await audioOptions.open()
        } catch {
            return Outcome(report: PreflightReport(), error: error)
        }
        defer { audio.close() }
        var options = PreflightOptions(
            accessToken: token, edgeURL: edgeURL, preferredAudioCodecs: CodecList.parse(codec), duration: (try? testDuration()) ?? .seconds(10),
            signalingTimeout: connection.timeout, iceTimeout: .milliseconds(Int64(iceTimeout * 1000)),
            mediaTimeout: .milliseconds(Int64(mediaTimeout * 1000)),
            iceServers: iceServers,
            iceTransportPolicy: iceTransportPolicy, gatheringTimeout: .milliseconds(Int64(gatheringTimeout * 1000)),
            consentTimeout: .milliseconds(Int64(consentTimeout * 1000)), turnTrustedCertificatesFile: turnCAFile,
            edgeTrustedCertificatesFile: connection.edgeCAFile)
        options.uploadsReport = !noUpload
        options.networkTypes = networkTypes.text
        options.continuesAfterSettling = continueAfterSettling
        options.pathDiagnosis = path.options
        if !roaming.isEmpty { options.edge = .roaming(roaming) }
        if measurementFault == .reorderAsLost { options.countsReorderedAsLost = true }
        options.fakeMicInput = audio.input == nil
        options.audioInput = audio.input
        options.audioOutput = audio.output
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

extension RunCommand {
    /// `--duration`: whole seconds (1–300) or `adaptive[:MAX]` (MAX 2–300, default 30).
    public func testDuration() throws -> TestDuration {
        let text = duration.trimmingCharacters(in: .whitespaces).lowercased()
        if text == "adaptive" { return .adaptive(maximum: TestDuration.defaultAdaptiveMaximum) }
        if text.hasPrefix("adaptive:") {
            guard let maximum = Int(text.dropFirst("adaptive:".count)), (2...300).contains(maximum) else {
                throw ValidationError("--duration adaptive:MAX needs MAX from 2 to 300 seconds, got \"\(duration.prefix(40))\"")
            }
            return .adaptive(maximum: .seconds(maximum))
        }
        guard let seconds = Int(text), (1...300).contains(seconds) else {
            throw ValidationError("--duration must be 1 to 300 seconds or adaptive[:MAX], got \"\(duration.prefix(40))\"")
        }
        return .seconds(seconds)
    }
}

import ArgumentParser
import Foundation
import Logging
import Preflight
import PreflightCore
import PreflightEdge

/// `preflight diagnose`: Telnyx's pre-call diagnosis: connect (register), call a test number for
/// a few seconds, and report MOS, quality, jitter and RTT in seconds, and the traffic.
public struct DiagnoseCommand: AsyncParsableCommand, Sendable {
    /// The subcommand's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "diagnose",
        abstract: "Telnyx's pre-call diagnosis: a short call to a test number, its MOS, quality, jitter and RTT.",
        discussion: """
            Connects as a client (registers), calls --number, holds the call --duration seconds once \
            connected, hangs up and prints each state (started, completed or failed), then the \
            diagnosis: jitter and RTT in seconds as Telnyx reports them, each rated by Telnyx's \
            guidelines. Without --edge-url an edge starts in this process on loopback and routes \
            \(LocalEdge.testNumber) to its echo; with --edge-url, --token needs the incoming grant and the \
            edge's dial application as its outgoing one (`preflight token --incoming`). Exits 1 with "error <code>: <message>" when the \
            diagnosis failed (docs/errors.md: 70501, 70502, 70503, 31404, 53000).
            """
    )

    /// The number to call.
    @Option(help: "The test number to call (the edge must route it; the local edge routes \(LocalEdge.testNumber) to its echo).")
    public var number: String = LocalEdge.testNumber
    /// How long the call lasts once connected.
    @Option(help: "Seconds the call lasts once connected (1-300).")
    public var duration: Double = 10
    /// The caller's name, sent with the call.
    @Option(name: .customLong("caller-name"), help: "A caller name sent with the call.")
    public var callerName: String?
    /// The caller's number, sent with the call.
    @Option(name: .customLong("caller-number"), help: "A caller number sent with the call.")
    public var callerNumber: String?

    /// The edge, its token, its CA file and the signaling timeout.
    @OptionGroup(title: "Edge")
    public var connection: EdgeConnectionOptions

    /// Print JSON.
    @Flag(help: "Print the outcome as JSON on standard output (the state lines go to standard error).")
    public var json = false

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// Checks the arguments' combinations (the number and duration are the SDK's to refuse, with their codes).
    public mutating func validate() throws {
        try connection.requireTogether()
    }

    /// Runs the diagnosis and prints its states and outcome.
    public func run() async throws {
        let outcome = await execute { FileHandle.standardError.write(Data(($0 + "\n").utf8)) } output: { print($0) }
        if let error = outcome.error { throw CommandFailure(error) }
    }

    /// What a run produced: the diagnosis, or why there is none.
    public struct Outcome: Sendable, Encodable {
        /// `completed` or `failed`.
        public var state: String
        /// The diagnosis, when completed.
        public var diagnosis: PreCallDiagnosis?
        /// Why it failed.
        public var error: ReportError?

        /// The failure, if any.
        var failure: PreflightError? { error.map { PreflightError(code: PreflightError.Code($0.code), message: $0.message) } }
    }

    /// Runs it; the state lines go to `progress` with `--json`, else to `output` with the summary.
    public func execute(progress: @escaping @Sendable (String) -> Void, output: @escaping @Sendable (String) -> Void) async -> (outcome: Outcome, error: PreflightError?) {
        let live: @Sendable (String) -> Void = json ? progress : output
        let outcome: Outcome
        if let remote = connection.remote {
            outcome = await diagnose(edgeURL: remote.edgeURL, token: remote.token, live: live)
        } else {
            do {
                outcome = try await LocalEdge.withRunning { local in
                    live("diagnose: local edge at \(local.signalingURL), \(LocalEdge.testNumber) routed to its echo")
                    return await diagnose(edgeURL: local.signalingURL, token: try await local.callToken(identity: "diagnosis"), live: live)
                }
            } catch {
                let failure = (error as? PreflightError) ?? PreflightError(code: .invalidArgument, message: "\(error)", underlying: error)
                outcome = Outcome(state: "failed", error: ReportError(failure))
            }
        }
        output(json ? ((try? JSONText.pretty(outcome)) ?? "{}") : DiagnosisText.summary(outcome))
        return (outcome, outcome.failure)
    }

    private func diagnose(edgeURL: String, token: String, live: @escaping @Sendable (String) -> Void) async -> Outcome {
        let registration: Registration
        do {
            registration = try await Voice.register(
                options: RegistrationOptions(
                    accessToken: token, edgeURL: edgeURL, edgeTrustedCertificatesFile: connection.edgeCAFile,
                    signalingTimeout: connection.timeout))
        } catch {
            live("failed: error \(error.code.rawValue): \(error.message)")
            return Outcome(state: "failed", error: ReportError(error))
        }
        live("connected as \(registration.identity)")
        let states = registration.preCallDiagnosisStates()
        var outcome = Outcome(state: "failed", error: ReportError(PreflightError(code: .cancelled, message: "the diagnosis did not end")))
        do {
            try registration.startPreCallDiagnosis(testNumber: number, callerName: callerName, callerNumber: callerNumber, duration: duration)
            for await state in states {
                switch state {
                case .started:
                    live("started: calling \(UntrustedText.excerpt(number)) for \(duration) s")
                    continue
                case .completed(let diagnosis):
                    live("completed")
                    outcome = Outcome(state: "completed", diagnosis: diagnosis)
                case .failed(let error):
                    let failure = error ?? PreflightError(code: .generalCallError, message: "the diagnosis failed")
                    live("failed: error \(failure.code.rawValue): \(failure.message)")
                    outcome = Outcome(state: "failed", error: ReportError(failure))
                }
                break
            }
        } catch {
            live("failed: error \(error.code.rawValue): \(error.message)")
            outcome = Outcome(state: "failed", error: ReportError(error))
        }
        await registration.unregister()
        return outcome
    }
}

import ArgumentParser
import Foundation
import Preflight
import PreflightCore
import UnixSignals

/// `preflight listen`: registers an identity for incoming calls on an edge and prints each invite,
/// cancellation and call callback; answers each invite automatically or rejects it.
public struct ListenCommand: AsyncParsableCommand, Sendable {
    /// The subcommand's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Register for incoming calls on an edge and answer (or reject) them, printing each event.",
        discussion: """
            Registers the identity of --token on --edge-url (the token needs the incoming grant: \
            `preflight token --incoming`) and prints a line per invite, cancellation and call \
            callback, and a line per second while a call is up. With --answer auto (the default) each \
            invite is accepted, one call at a time (an invite that rings during a call is rejected); \
            with --answer reject each is rejected. Runs until SIGINT or SIGTERM, or with --calls N \
            until N invites were handled to their end (a call ended, an invite rejected or cancelled). \
            An edge is required: one started by this command would have no callers. When the edge \
            ends the registration (it drains before it stops, 70109, or the connection is lost), \
            listen registers again, on --edge-url or the first --fallback-edge-url that takes it, \
            trying each second for up to 60 s.
            """
    )

    /// How invites are answered.
    public enum Answer: String, Sendable, CaseIterable, ExpressibleByArgument {
        /// Accept each invite, one call at a time.
        case auto
        /// Reject each invite.
        case reject
    }

    /// The edge, the token of the identity to register (with the incoming grant), its CA file
    /// and the signaling timeout. Both the URL and the token are required.
    @OptionGroup(title: "Edge")
    public var connection: EdgeConnectionOptions

    /// The identity expected to register.
    @Option(help: "The identity the token registers (checked against the edge's answer; default: whichever the token names).")
    public var identity: String?

    /// Edges to register on when --edge-url cannot take the registration.
    @Option(name: .customLong("fallback-edge-url"), help: "An edge to register on when --edge-url cannot (unreachable, at capacity, draining); repeat for more, tried in order.")
    public var fallbackEdgeURLs: [String] = []

    /// How invites are answered.
    @Option(help: "auto (accept each invite, one call at a time) or reject.")
    public var answer: Answer = .auto

    /// How many invites to handle before exiting.
    @Option(help: "Exit after this many invites were handled to their end (1-100000); default: run until SIGINT/SIGTERM.")
    public var calls: Int?

    /// The codecs an accept offers, by preference, comma-separated.
    @Option(help: "The audio codecs to accept with, comma-separated: PCMU,opus (default) takes a call in either; a call carries its caller's codec.")
    public var codec: String = "PCMU,opus"

    /// Print JSON lines instead of text.
    @Flag(help: "Print one JSON object per line for each event; a call's outcome when it ends.")
    public var json = false

    /// The type of named interfaces, for the calls' network switch.
    @OptionGroup(title: "Networks")
    public var networkTypes: NetworkTypeOption

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// Checks the arguments before running; each `ValidationError` names its rule.
    public func validate() throws {
        guard connection.remote != nil else {
            throw ValidationError("listen needs --edge-url and --token: an edge started by this command would have no callers")
        }
        if let identity, identity.isEmpty { throw ValidationError("--identity must not be empty") }
        if let calls, !(1...100_000).contains(calls) { throw ValidationError("--calls must be 1 to 100000, got \(calls)") }
        if fallbackEdgeURLs.count > 16 { throw ValidationError("at most 16 --fallback-edge-url, got \(fallbackEdgeURLs.count)") }
        for url in fallbackEdgeURLs where !(url.hasPrefix("ws://") || url.hasPrefix("wss://")) {
            throw ValidationError("--fallback-edge-url must be a ws:// or wss:// URL, got \(url)")
        }
    }

    /// Registers and handles invites until a signal, `--calls` or the end of the registration.
    public func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let (stop, stopContinuation) = AsyncStream<Void>.makeStream()
        let watcher = Task {
            for await _ in signals {
                stopContinuation.yield()
                return
            }
        }
        defer { watcher.cancel() }
        let result = await listen(stop: stop) { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        } output: { line in
            print(line)
        }
        if let error = result.error { throw CommandFailure(error) }
    }

    /// What a listening session did.
    public struct Result: Sendable {
        /// The outcomes of the calls accepted, in the order they ended.
        public var outcomes: [CallOutcome]
        /// The invites rejected (call sids).
        public var rejected: [String]
        /// The invites cancelled before they were answered (call sids).
        public var cancelled: [String]
        /// Why listening failed, if it did (the registration refused or lost).
        public var error: PreflightError?
    }

    /// Registers and handles invites until `stop` yields, `--calls` invites were handled, or the
    /// registration ends. `output` receives the event lines; the calls' callbacks and per-second
    /// lines go to `progress` with `--json`, else to `output` too.
    public func listen(
        stop: AsyncStream<Void>, progress: @escaping @Sendable (String) -> Void, output: @escaping @Sendable (String) -> Void
    ) async -> Result {
        var result = Result(outcomes: [], rejected: [], cancelled: [])
        var options = RegistrationOptions(
            accessToken: connection.token ?? "", edgeURL: connection.edgeURL ?? "", edgeTrustedCertificatesFile: connection.edgeCAFile,
            signalingTimeout: connection.timeout)
        options.fallbackEdgeURLs = fallbackEdgeURLs
        var registration: Registration
        do {
            registration = try await Voice.register(options: options)
        } catch {
            result.error = error
            return result
        }
        if let identity, registration.identity != identity {
            await registration.unregister()
            result.error = PreflightError(
                code: .invalidArgument, message: "listen: the token registers \(registration.identity), not --identity \(identity)")
            return result
        }
        emit(output, ListenEvent(event: "registered", identity: registration.identity, edge: registration.edgeURL),
             text: "registered as client:\(registration.identity) on \(registration.edgeURL)")
        let (inputs, continuation) = AsyncStream<ListenInput>.makeStream()
        func follow(_ registration: Registration) -> Task<Void, Never> {
            let events = registration.events()
            return Task { for await event in events { continuation.yield(.registration(event)) } }
        }
        var feeders = [follow(registration), Task { for await _ in stop { continuation.yield(.stop) } }]
        var reregistering: Task<Swift.Result<Registration, PreflightError>, Never>?
        var active: Call?
        var handled = 0
        loop: for await input in inputs {
            switch input {
            case .registration(.callInvite(let invite)):
                let busy = active != nil
                let accepting = answer == .auto && !busy
                emit(
                    output, ListenEvent(event: accepting ? "accepting" : "rejecting", callSid: invite.callSid, from: invite.from, to: invite.to),
                    text: "invite \(invite.callSid) from \(invite.from) to \(invite.to): \(accepting ? "accepting" : busy ? "rejecting (a call is up)" : "rejecting")")
                guard accepting else {
                    invite.reject()
                    result.rejected.append(invite.callSid)
                    handled += 1
                    if let calls, handled >= calls {
                        // `reject()` sends in the background: let it leave before the connection
                        // closes (a closed registration would end the ringing as "no answer").
                        try? await Task.sleep(for: .milliseconds(500))
                        break loop
                    }
                    continue
                }
                let recorder = CallOutcomeRecorder(party: "callee", live: json ? progress : output)
                var callOptions = CallOptions(preferredAudioCodecs: CodecList.parse(codec))
                callOptions.networkTypes = networkTypes.text
                var options = AcceptOptions(callOptions: callOptions)
                options.delegateQueue = recorder.callbackQueue
                let call = invite.accept(options: options, delegate: recorder)
                recorder.follow(call)
                active = call
                Task {
                    _ = try? await call.result()
                    continuation.yield(.callEnded(await recorder.outcome(of: call)))
                }
            case .registration(.cancelledCallInvite(let cancelled, let error)):
                emit(
                    output, ListenEvent(event: "cancelled", callSid: cancelled.callSid, from: cancelled.from, to: cancelled.to, error: ReportError(error)),
                    text: "invite \(cancelled.callSid) cancelled: error \(error.code.rawValue): \(error.message)")
                result.cancelled.append(cancelled.callSid)
                handled += 1
                if let calls, handled >= calls { break loop }
            case .registration(.unregistered(let error)):
                emit(output, ListenEvent(event: "unregistered", error: error.map { ReportError($0) }),
                     text: "unregistered\(error.map { ": error \($0.code.rawValue): \($0.message)" } ?? "")")
                guard let error, Self.errorsRegisteringAgain.contains(error.code) else {
                    result.error = error
                    break loop
                }
                // Registered again in the background: a signal still stops listen meanwhile.
                reregistering = Task {
                    let outcome = await registerAgain(options)
                    continuation.yield(.registeredAgain(outcome))
                    return outcome
                }
            case .registeredAgain(.success(let again)):
                reregistering = nil
                // The edge ended the old one after its call, if any (70109 comes to a session in
                // a call when the call ends; a lost connection took its call with it).
                await registration.unregister()
                registration = again
                feeders.append(follow(again))
                emit(output, ListenEvent(event: "registered", identity: again.identity, edge: again.edgeURL),
                     text: "registered again as client:\(again.identity) on \(again.edgeURL)")
            case .registeredAgain(.failure(let failure)):
                result.error = failure
                break loop
            case .registration(.preCallDiagnosisStateUpdated):
                // A diagnosis is started by `preflight diagnose`, not here.
                continue
            case .callEnded(let outcome):
                active = nil
                result.outcomes.append(outcome)
                emit(output, ListenEvent(event: "ended", callSid: outcome.callSid, outcome: outcome), text: CallReportText.summary(outcome))
                handled += 1
                if let calls, handled >= calls { break loop }
            case .stop:
                break loop
            }
        }
        if let reregistering {
            reregistering.cancel()
            if case .success(let late) = await reregistering.value, late !== registration { await late.unregister() }
        }
        active?.disconnect()
        if let active { _ = try? await active.result() }
        await registration.unregister()
        for feeder in feeders { feeder.cancel() }
        continuation.finish()
        return result
    }

    /// Why an edge ended a registration that listen makes again: the edge, not the token, failed.
    static let errorsRegisteringAgain: Set<PreflightError.Code> = [
        .edgeDraining, .signalingDisconnected, .signalingConnectionError, .signalingTimeout, .sessionResumeRefused,
    ]

    /// Registers with `options` again, each second for up to 60 s while an edge fails; stops when
    /// cancelled or at an error no other attempt would change (the token's).
    private func registerAgain(_ options: RegistrationOptions) async -> Swift.Result<Registration, PreflightError> {
        let deadline = ContinuousClock.now + .seconds(60)
        var lastError = PreflightError(code: .signalingConnectionError, message: "listen: no edge took the registration again")
        while ContinuousClock.now < deadline, !Task.isCancelled {
            do {
                return .success(try await Voice.register(options: options))
            } catch {
                lastError = error
                guard Self.errorsRegisteringAgain.contains(error.code) else { return .failure(error) }
            }
            try? await Task.sleep(for: .seconds(1))
        }
        return .failure(lastError)
    }

    /// What the listening loop reacts to.
    private enum ListenInput: Sendable {
        case registration(RegistrationEvent)
        case registeredAgain(Swift.Result<Registration, PreflightError>)
        case callEnded(CallOutcome)
        case stop
    }

    private func emit(_ output: @Sendable (String) -> Void, _ event: ListenEvent, text: String) {
        output(json ? CallReportText.jsonLine(event) : text)
    }
}

/// One line of `preflight listen --json`.
struct ListenEvent: Encodable {
    var event: String
    var identity: String?
    /// The edge registered on (`registered`).
    var edge: String?
    var callSid: String?
    var from: String?
    var to: String?
    var error: ReportError?
    var outcome: CallOutcome?
}

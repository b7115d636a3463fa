import ArgumentParser
import Foundation
import Preflight
import PreflightCore
import PreflightEdge
import Synchronization
import UnixSignals

/// `preflight call`: places a call between clients with the SDK (`Voice.connect`) and prints each
/// callback, a line per second of stats and the outcome. Without `--edge-url` both parties run in
/// this process on a local edge: the callee (`--to client:<identity>`) registers and answers.
public struct CallCommand: AsyncParsableCommand, Sendable {
    /// The subcommand's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Place a call (default: between two clients in this process, through a local edge on 127.0.0.1).",
        discussion: """
            Without --edge-url, an edge starts in this process on ephemeral loopback ports; the identity \
            of --to client:<identity> registers on it and answers, and the call is placed from \
            client:preflight-caller (any other --to, e.g. echo, is just called). With --edge-url and \
            --token, the call is placed on a deployed edge; the token's outgoing application must be \
            the edge's dial application. Each callback and a line per second (RTT, \
            jitter, loss, MOS, packets sent/received, warnings) are printed while it runs; the call \
            hangs up --duration seconds after it connected, and each party's outcome follows (with \
            --json, one JSON object {"caller": …, "callee": …}). Exits 1 with "error <code>: <message>" \
            when the call failed to connect or ended with an error.
            """
    )

    /// Whom to call.
    @Option(help: "Whom to call: client:<identity>, or a number or test application the edge routes (e.g. echo).")
    public var to: String

    /// The edge, its token, its CA file and the signaling timeout.
    @OptionGroup(title: "Edge")
    public var connection: EdgeConnectionOptions

    /// DTMF digits to send once connected.
    @Option(help: "Digits to send once connected, as RFC 4733 telephone events: 0-9, *, #, and w for a 500 ms pause (at most 256).")
    public var digits: String?
    /// Seconds the call stays up once connected.
    @Option(help: "Seconds the call stays up once connected, then it hangs up (1-3600).")
    public var duration: Int = 10

    /// The local edge's dial application with answerOnBridge.
    @Flag(
        name: .customLong("answer-on-bridge"),
        help: "Use the local edge's dial application with answerOnBridge (the caller connects when the callee answers). With --edge-url the token chooses.")
    public var answerOnBridge = false

    /// The codecs both parties offer, by preference, comma-separated.
    @Option(help: "The audio codecs to offer by preference, comma-separated: PCMU (default), opus, or opus,PCMU. Both parties carry the caller's choice.")
    public var codec: String = "PCMU"

    /// Extra STUN/TURN servers and their TURN credentials.
    @OptionGroup(title: "ICE servers")
    public var iceServerOptions: ICEServerOptions
    /// Which candidates ICE may use.
    @Option(name: .customLong("ice-transport-policy"), help: "all, or relay to force media through TURN.")
    public var iceTransportPolicy: ICETransportPolicy = .all

    /// The type of named interfaces, for the call's network switch.
    @OptionGroup(title: "Networks")
    public var networkTypes: NetworkTypeOption

    /// Print the outcomes as JSON.
    @Flag(help: "Print the outcome as one JSON object on standard output (the live lines go to standard error).")
    public var json = false

    /// The caller's identity when both parties run here.
    public static let localCallerIdentity = "preflight-caller"

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// Checks the arguments before running; each `ValidationError` names its rule.
    public func validate() throws {
        guard !to.isEmpty else { throw ValidationError("--to must not be empty") }
        if to.hasPrefix("client:"), calleeIdentity?.isEmpty != false {
            throw ValidationError("--to client: needs an identity, e.g. client:bob")
        }
        guard (1...3600).contains(duration) else { throw ValidationError("--duration must be 1 to 3600 seconds, got \(duration)") }
        if let digits {
            let allowed = Set("0123456789*#w")
            guard !digits.isEmpty, digits.count <= 256, digits.allSatisfy(allowed.contains) else {
                throw ValidationError("--digits must be 1 to 256 of 0-9, *, # and w, got \"\(digits)\"")
            }
        }
        try connection.requireTogether()
        if connection.edgeURL != nil, answerOnBridge {
            throw ValidationError("--answer-on-bridge chooses the local edge's dial application; with --edge-url the token's grant chooses it")
        }
        try iceServerOptions.checkCredentialsHaveATURNServer()
    }

    /// The identity of `--to client:<identity>`; `nil` for any other `--to`.
    var calleeIdentity: String? {
        to.hasPrefix("client:") ? String(to.dropFirst("client:".count)) : nil
    }

    /// Runs the call and prints its progress and outcome; SIGINT or SIGTERM hangs up early (the
    /// outcome is still printed).
    public func run() async throws {
        let hangUp = HangUpRequest()
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let watcher = Task {
            for await _ in signals {
                hangUp.request()
                return
            }
        }
        defer { watcher.cancel() }
        let outcomes = await execute(hangUp: hangUp) { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        } output: { text in
            print(text)
        }
        if let error = outcomes.error { throw CommandFailure(error) }
    }

    /// Runs the call; `progress` receives the live lines with `--json` (else `output` does), and
    /// `output` the outcome.
    public func execute(progress: @escaping @Sendable (String) -> Void, output: @escaping @Sendable (String) -> Void) async -> CallOutcomes {
        await execute(hangUp: HangUpRequest(), progress: progress, output: output)
    }

    /// A request to hang up before the duration is over (a signal).
    final class HangUpRequest: Sendable {
        private struct State {
            var requested = false
            var waiters: [CheckedContinuation<Void, Never>] = []
        }
        private let state = Mutex(State())

        func request() {
            resumeWaiters(requesting: true)
        }

        var isRequested: Bool { state.withLock { $0.requested } }

        /// Returns once the hang-up is requested, or at once when the task is cancelled.
        func wait() async {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let now = state.withLock { state in
                        if state.requested || Task.isCancelled { return true }
                        state.waiters.append(continuation)
                        return false
                    }
                    if now { continuation.resume() }
                }
            } onCancel: {
                resumeWaiters(requesting: false)
            }
        }

        private func resumeWaiters(requesting: Bool) {
            let waiters = state.withLock { state in
                if requesting { state.requested = true }
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    func execute(
        hangUp: HangUpRequest, progress: @escaping @Sendable (String) -> Void, output: @escaping @Sendable (String) -> Void
    ) async -> CallOutcomes {
        let live: @Sendable (String) -> Void = json ? progress : output
        let outcomes = await outcomes(hangUp: hangUp, live: live)
        output(json ? outcomes.jsonText() : CallReportText.summary(outcomes))
        return outcomes
    }

    private func outcomes(hangUp: HangUpRequest, live: @escaping @Sendable (String) -> Void) async -> CallOutcomes {
        let callOptions: CallOptions
        do {
            var options = CallOptions(
                preferredAudioCodecs: CodecList.parse(codec),
                iceServers: try iceServerOptions.servers(environment: ProcessInfo.processInfo.environment),
                iceTransportPolicy: iceTransportPolicy)
            options.networkTypes = networkTypes.text
            callOptions = options
        } catch {
            return Self.failedBeforeCalling((error as? CommandFailure)?.error
                ?? PreflightError(code: .invalidArgument, message: "\(error)", underlying: error))
        }
        if let remote = connection.remote {
            live("call: calling \(to) on \(remote.edgeURL)")
            return CallOutcomes(caller: await place(edgeURL: remote.edgeURL, token: remote.token, callOptions: callOptions, hangUp: hangUp, live: live), callee: nil)
        }
        var configuration = LocalEdge.configuration()
        // A call to a test application (`--to echo`) is a test call: let it last the whole duration.
        configuration.maximumTestDuration = max(configuration.maximumTestDuration, .seconds(duration + 60))
        do {
            return try await LocalEdge.withRunning(configuration: configuration) { local in
                try await callThroughLocalEdge(local, callOptions: callOptions, hangUp: hangUp, live: live)
            }
        } catch {
            return Self.failedBeforeCalling((error as? PreflightError)
                ?? PreflightError(code: .invalidArgument, message: "cannot start the local edge", underlying: error))
        }
    }

    /// Registers the callee (for `client:` calls) on `local`, places the call, and collects both outcomes.
    private func callThroughLocalEdge(
        _ local: LocalEdge, callOptions: CallOptions, hangUp: HangUpRequest, live: @escaping @Sendable (String) -> Void
    ) async throws(PreflightError) -> CallOutcomes {
        let token = try await local.callToken(identity: Self.localCallerIdentity, answerOnBridge: answerOnBridge, incomingAllow: false)
        guard let calleeIdentity else {
            live("call: local edge at \(local.signalingURL); calling \(to) from client:\(Self.localCallerIdentity)")
            return CallOutcomes(caller: await place(edgeURL: local.signalingURL, token: token, callOptions: callOptions, hangUp: hangUp, live: live), callee: nil)
        }
        let registration = try await Self.register(
            RegistrationOptions(
                accessToken: try await local.callToken(identity: calleeIdentity), edgeURL: local.signalingURL,
                signalingTimeout: .seconds(min(connection.signalingTimeout, 3))),
            attempts: 3)
        live("call: local edge at \(local.signalingURL); client:\(calleeIdentity) registered (answers automatically); calling it from client:\(Self.localCallerIdentity)")
        let invites = registration.events()
        let callee = Task { await Self.answerFirstInvite(invites, callOptions: callOptions, live: live) }
        let caller = await place(edgeURL: local.signalingURL, token: token, callOptions: callOptions, hangUp: hangUp, live: live)
        // The callee's call ends with the caller's hangup; one that never rang is waited for a little.
        let grace = Task {
            try? await Task.sleep(for: .seconds(5))
            if !Task.isCancelled { await registration.unregister() }
        }
        let calleeOutcome = await callee.value
        grace.cancel()
        await registration.unregister()
        return CallOutcomes(caller: caller, callee: calleeOutcome)
    }

    /// Registers on the local edge, again after a timeout (at most `attempts` times): the SDK's
    /// signaling client starts waiting for `registered` only after `register` was written, so an
    /// edge that answers sooner leaves it waiting (53002) now and then.
    private static func register(_ options: RegistrationOptions, attempts: Int) async throws(PreflightError) -> Registration {
        var attempt = 1
        while true {
            do {
                return try await Voice.register(options: options)
            } catch where error.code == .signalingTimeout && attempt < attempts {
                attempt += 1
            }
        }
    }

    /// Accepts the first invite of `invites` and follows its call to the end; `nil` when the
    /// registration ended first.
    private static func answerFirstInvite(
        _ invites: AsyncStream<RegistrationEvent>, callOptions: CallOptions, live: @escaping @Sendable (String) -> Void
    ) async -> CallOutcome? {
        for await event in invites {
            switch event {
            case .callInvite(let invite):
                live("callee invite \(invite.callSid) from \(invite.from) to \(invite.to): accepting")
                let recorder = CallOutcomeRecorder(party: "callee", live: live)
                var options = AcceptOptions(callOptions: callOptions)
                options.delegateQueue = recorder.callbackQueue
                let call = invite.accept(options: options, delegate: recorder)
                recorder.follow(call)
                _ = try? await call.result()
                return await recorder.outcome(of: call)
            case .cancelledCallInvite(let cancelled, let error):
                live("callee invite \(cancelled.callSid) cancelled: error \(error.code.rawValue): \(error.message)")
            case .preCallDiagnosisStateUpdated:
                continue
            case .unregistered:
                return nil
            }
        }
        return nil
    }

    /// Places the call, keeps it up for the duration once connected, hangs up and returns the outcome.
    private func place(
        edgeURL: String, token: String, callOptions: CallOptions, hangUp: HangUpRequest, live: @escaping @Sendable (String) -> Void
    ) async -> CallOutcome {
        let recorder = CallOutcomeRecorder(party: "caller", live: live)
        var options = ConnectOptions(
            accessToken: token, edgeURL: edgeURL, params: ["To": to], edgeTrustedCertificatesFile: connection.edgeCAFile,
            signalingTimeout: connection.timeout, callOptions: callOptions)
        options.delegateQueue = recorder.callbackQueue
        let call = Voice.connect(options: options, delegate: recorder)
        recorder.follow(call)
        // Cancelling this command (a parent task's cancellation) hangs up.
        await withTaskCancellationHandler {
            await Self.hold(call, for: .seconds(duration), hangUp: hangUp, digits: digits)
        } onCancel: {
            call.disconnect()
        }
        return await recorder.outcome(of: call)
    }

    /// Waits until `call` connects (or ends), keeps it up for `duration` unless it ends sooner or
    /// `hangUp` is requested, then hangs up and waits for the end. It waits on the call's events,
    /// the request and one deadline: nothing wakes it while the call is up.
    static func hold(_ call: Call, for duration: Duration, hangUp: HangUpRequest, digits: String? = nil) async {
        let clock = ContinuousClock()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await hangUp.wait() }
            group.addTask {
                await connection(of: call)
                guard call.state == .connected, !Task.isCancelled else { return }
                // Checked by validate(); they play while the call is up, once half a second of the far
                // party's audio has arrived (at most 3 s): "connected" can come before the far leg's
                // route is checked, and the bridge sends the far party no more than it received from
                // it, so until the far party's stream has run ahead a little a packet arriving early
                // is dropped (busy hosts lost the first digit, then the first two, so).
                if let digits {
                    let heard = clock.now + .seconds(3)
                    while call.state == .connected, (call.getStats()?.remoteAudioTrackStats.first?.packetsReceived ?? 0) < 25,
                        clock.now < heard, !Task.isCancelled
                    {
                        try? await Task.sleep(for: .milliseconds(20))
                    }
                    try? call.sendDigits(digits)
                }
                // Up for `duration` from now, unless it ends sooner.
                await withTaskGroup(of: Void.self) { up in
                    up.addTask { try? await Task.sleep(for: duration, clock: clock) }
                    up.addTask { await end(of: call) }
                    await up.next()
                    up.cancelAll()
                }
            }
            await group.next()
            group.cancelAll()
        }
        call.disconnect()
        _ = try? await call.result()
    }

    /// Returns once `call` has left connecting and ringing (connected, or ended). Subscribed
    /// before the state is read, so a change after the read is an event; the subscription ends here.
    private static func connection(of call: Call) async {
        let events = call.events()
        guard [.connecting, .ringing].contains(call.state) else { return }
        for await event in events {
            if case .connected = event { return }
            if event.isFinal { return }
        }
    }

    /// Returns once `call` has ended (at once if it already has).
    private static func end(of call: Call) async {
        let events = call.events()
        guard call.state != .disconnected else { return }
        for await event in events where event.isFinal { return }
    }

    /// The outcome of a call that could not even be placed.
    static func failedBeforeCalling(_ error: PreflightError) -> CallOutcomes {
        CallOutcomes(
            caller: CallOutcome(
                party: "caller", states: [], callbacks: [], callSid: nil, error: ReportError(error), samples: [], warnings: []),
            callee: nil)
    }
}

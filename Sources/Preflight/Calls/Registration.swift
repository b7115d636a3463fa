import Dispatch
import Logging
import PreflightModel
internal import PreflightCore
internal import PreflightNIO
import Synchronization

/// A registration for incoming calls: one signaling session on which the edge rings this
/// device for calls to its identity. ``CallInvite``s and ``CancelledCallInvite``s arrive on
/// ``events()`` (or a ``NotificationDelegate``); a call accepted here runs on the same session.
/// ``unregister()`` ends it.
public final class Registration: Sendable {
    /// The identity calls ring for.
    public let identity: String
    /// The edge it registered on: ``RegistrationOptions/edgeURL`` or one of its
    /// ``RegistrationOptions/fallbackEdgeURLs``.
    public let edgeURL: String
    /// What the registration was opened with (a pre-call diagnosis places its call with them).
    let options: RegistrationOptions
    let signaling: SignalingClient
    let welcome: SignalingMessage.Welcome
    let logger: Logger
    let storage = Mutex(State())

    struct State {
        var invites: [String: CallInvite] = [:]
        var calls: [String: AsyncStream<CallRun.Input>.Continuation] = [:]
        var subscribers = EventSubscribers<RegistrationEvent>()
        var tasks: [Task<Void, Never>] = []
        /// Messages sent in the background (rejections), awaited before the session closes.
        var sending: [Task<Void, Never>] = []
        /// The session ended: nothing rings here any more.
        var ended = false
        /// Whether a pre-call diagnosis runs, and its task (cancelled by ``unregister()``).
        var diagnosing = false
        var diagnosis: Task<Void, Never>?
        /// The running or last pre-call diagnosis's outcome (its states are the registration's events).
        var diagnosisRun: RunHandle<Never, PreCallDiagnosis, Void>?
    }

    private init(
        identity: String, edgeURL: String, options: RegistrationOptions, signaling: SignalingClient, welcome: SignalingMessage.Welcome,
        logger: Logger
    ) {
        self.identity = identity
        self.edgeURL = edgeURL
        self.options = options
        self.signaling = signaling
        self.welcome = welcome
        self.logger = logger
    }

    /// Errors on which a registration tries the next edge: the edge, not the token, failed.
    static let errorsTryingAnotherEdge: Set<PreflightError.Code> = [
        .signalingConnectionError, .signalingDisconnected, .signalingTimeout, .edgeAtCapacity, .edgeDraining,
    ]

    /// Registers on ``RegistrationOptions/edgeURL``, or on the first of its fallbacks that takes
    /// the registration when the edge failed (``errorsTryingAnotherEdge``); throws the last
    /// edge's error.
    static func open(
        options: RegistrationOptions, delegate: (any NotificationDelegate)?, logger: Logger
    ) async throws(PreflightError) -> Registration {
        let edges = [options.edgeURL] + options.fallbackEdgeURLs
        var index = 0
        while true {
            do {
                return try await open(edgeURL: edges[index], options: options, delegate: delegate, logger: logger)
            } catch {
                index += 1
                guard index < edges.count, errorsTryingAnotherEdge.contains(error.code) else { throw error }
                logger.info("registration: trying the next edge", metadata: ["failed": "\(edges[index - 1])", "error": "\(error.code.rawValue)"])
            }
        }
    }

    private static func open(
        edgeURL: String, options: RegistrationOptions, delegate: (any NotificationDelegate)?, logger: Logger
    ) async throws(PreflightError) -> Registration {
        let signaling = SignalingClient(
            configuration: SignalingClientConfiguration(
                url: edgeURL, accessToken: options.accessToken, trustedCertificatesFile: options.edgeTrustedCertificatesFile,
                timeout: options.signalingTimeout, resumesSession: true, resumeTimeout: options.signalingResumeTimeout),
            logger: logger)
        let runner = Task { await signaling.run() }
        let welcome: SignalingMessage.Welcome
        let identity: String
        do {
            welcome = try await signaling.connect()
            identity = try await signaling.register()
        } catch {
            await signaling.close()
            runner.cancel()
            throw error
        }
        let registration = Registration(
            identity: identity, edgeURL: edgeURL, options: options, signaling: signaling, welcome: welcome, logger: logger)
        registration.attach(delegate, on: options.delegateQueue)
        let dispatcher = Task { await registration.dispatch() }
        registration.storage.withLock { $0.tasks = [runner, dispatcher] }
        return registration
    }

    /// A new stream of the registration's events from now on; one made after it ended yields
    /// ``RegistrationEvent/unregistered(_:)`` and finishes.
    public func events() -> AsyncStream<RegistrationEvent> {
        let (stream, continuation) = AsyncStream<RegistrationEvent>.makeStream()
        // A subscriber that stops listening is dropped at the next event (``EventSubscribers``).
        _ = storage.withLock { $0.subscribers.add(continuation) }
        return stream
    }

    /// Stops receiving calls: the session closes, and calls accepted on it end.
    public func unregister() async {
        storage.withLock { $0.diagnosis }?.cancel()
        for task in storage.withLock({ $0.sending }) { await task.value }
        await signaling.close()
        for task in storage.withLock({ $0.tasks }) { await task.value }
    }

    /// Sends `message` on the registration's session in the background; ``unregister()`` waits
    /// for it.
    func send(_ message: SignalingMessage) {
        let signaling = signaling
        let task = Task { _ = try? await signaling.send(message) }
        storage.withLock { $0.sending.append(task) }
    }

    // MARK: Routing

    /// Routes the edge's messages of `callSid` to an accepted call's run.
    func route(callSid: String, to inputs: AsyncStream<CallRun.Input>.Continuation) {
        storage.withLock { $0.calls[callSid] = inputs }
    }

    func unroute(callSid: String) {
        _ = storage.withLock { $0.calls.removeValue(forKey: callSid) }
    }

    /// Takes an invite out of those ringing: accepted or rejected once.
    func claim(_ callSid: String) -> Bool {
        storage.withLock { $0.invites.removeValue(forKey: callSid) != nil }
    }

    /// Dispatches the session's events: invites and cancellations to the subscribers, a call's
    /// messages to its run, the connection's changes to every call.
    func dispatch() async {
        // An `error` of the session itself (no call's: the edge drains, 70109) is why it ends.
        var sessionError: PreflightError?
        for await event in signaling.events {
            if case .message(.error(let info)) = event, info.callSid == nil {
                let message = info.message.hasPrefix("edge: ") ? info.message : "edge: \(info.message)"
                sessionError = PreflightError(code: PreflightError.Code(info.code), message: message)
            }
            switch event {
            case .message(.incoming(let incoming)):
                let invite = CallInvite(
                    callSid: incoming.callSid, from: incoming.from, to: incoming.to, customParameters: incoming.params,
                    registration: self)
                storage.withLock { $0.invites[incoming.callSid] = invite }
                publish(.callInvite(invite))
            case .message(.cancel(let cancel)):
                guard let invite = storage.withLock({ $0.invites.removeValue(forKey: cancel.callSid) }) else { continue }
                let error = PreflightError(
                    code: PreflightError.Code(cancel.code ?? PreflightError.Code.generalCallError.rawValue),
                    message: "call invite cancelled: \(cancel.reason ?? "no reason given")")
                publish(.cancelledCallInvite(CancelledCallInvite(callSid: invite.callSid, from: invite.from, to: invite.to), error: error))
            case .message(let message):
                let sid = message.callSid
                let targets = storage.withLock { state in sid.map { state.calls[$0].map { [$0] } ?? [] } ?? Array(state.calls.values) }
                for inputs in targets { inputs.yield(.session(.signaling(event))) }
            case .reconnecting, .reconnected, .closed:
                for inputs in storage.withLock({ Array($0.calls.values) }) { inputs.yield(.session(.signaling(event))) }
                if case .closed(let error) = event { finish(sessionError ?? error) }
            }
        }
    }

    func publish(_ event: RegistrationEvent) {
        storage.withLock { $0.subscribers.yield(event) }
    }

    func finish(_ error: PreflightError?) {
        let finished = storage.withLock { state -> [AsyncStream<RegistrationEvent>.Continuation]? in
            state.ended = true
            return state.subscribers.end(with: .unregistered(error))
        } ?? []
        for continuation in finished { continuation.finish() }
    }

    /// Adapts the event stream to `delegate` (one subscriber among any others), its callbacks
    /// on `queue` in the events' order.
    func attach(_ delegate: (any NotificationDelegate)?, on queue: DispatchQueue) {
        guard let delegate else { return }
        let events = events()
        Task {
            for await event in events {
                queue.async {
                    switch event {
                    case .callInvite(let invite): delegate.callInviteReceived(invite)
                    case .cancelledCallInvite(let cancelled, let error): delegate.cancelledCallInviteReceived(cancelled, error: error)
                    case .preCallDiagnosisStateUpdated(let state): delegate.onPreCallDiagnosisStateUpdated(state: state)
                    case .unregistered: break
                    }
                }
            }
        }
    }
}

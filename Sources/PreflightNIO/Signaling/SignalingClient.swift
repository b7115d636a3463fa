import Logging
import PreflightCore
import Synchronization

/// The client side of the signaling protocol (docs/protocol.md) over a ``SignalingConnection``:
/// ``connect()`` signs in (hello → welcome), ``invite(_:)`` places a call and returns its answer,
/// and what the edge pushes on its own (ringing, hangup, errors) arrives on ``events``. Every
/// request waits at most ``SignalingClientConfiguration/timeout``: one place for signaling
/// timeouts and errors.
///
/// Start ``run()`` in a task first; it ends when the connection does.
public final class SignalingClient: Sendable {
    /// What the edge did that no request waited for.
    public enum Event: Sendable {
        /// A message no request was waiting for: ringing, hangup, an error outside a request…
        case message(SignalingMessage)
        /// The connection ended: `nil` after ``close()``, else why.
        case closed(PreflightError?)
    }

    /// The edge's unrequested messages, then ``Event/closed(_:)``.
    public let events: AsyncStream<Event>
    /// The client's settings.
    public let configuration: SignalingClientConfiguration
    let eventContinuation: AsyncStream<Event>.Continuation
    let connection: SignalingConnection
    let state = Mutex(State())

    enum Awaited: Hashable, Sendable {
        case open, welcome, answer
    }

    typealias Waiter = CheckedContinuation<Result<SignalingMessage?, PreflightError>, Never>

    struct State: Sendable {
        var isOpen = false
        /// Set when the connection ended: why (`nil` inside: closed by us).
        var ended: PreflightError??
        var waiters: [Awaited: Waiter] = [:]
        var cancelled: Set<Awaited> = []
    }

    /// Creates a client; nothing happens until ``run()``.
    public init(configuration: SignalingClientConfiguration, logger: Logger) {
        self.configuration = configuration
        connection = SignalingConnection(
            url: configuration.url, trustedCertificatesFile: configuration.trustedCertificatesFile, logger: logger)
        (events, eventContinuation) = AsyncStream<Event>.makeStream()
    }

    /// Connects and routes the edge's messages until the connection ends.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.connection.run() }
            for await event in connection.events {
                switch event {
                case .connected:
                    state.withLock { $0.isOpen = true }
                    resolve(.open, .success(nil))
                case .message(let message):
                    route(message)
                case .closed(let error):
                    let waiters = state.withLock { state in
                        state.isOpen = false
                        state.ended = .some(error)
                        defer { state.waiters.removeAll() }
                        return Array(state.waiters.values)
                    }
                    let failure = error ?? PreflightError(code: .signalingDisconnected, message: "signaling: the connection was closed")
                    for waiter in waiters { waiter.resume(returning: .failure(failure)) }
                    eventContinuation.yield(.closed(error))
                    eventContinuation.finish()
                }
            }
        }
    }

    /// Opens the WebSocket and signs in with the access token.
    /// - Returns: the edge's welcome (its name, ICE servers, …).
    /// - Throws: ``PreflightError``: the edge's error (e.g. a refused token), `.signalingTimeout`
    ///   when there is no welcome within the timeout, or why the connection failed.
    public func connect() async throws(PreflightError) -> SignalingMessage.Welcome {
        let deadline = ContinuousClock.now + configuration.timeout
        _ = try await wait(for: .open, until: deadline)
        try await send(.hello(token: configuration.accessToken, client: configuration.clientName))
        guard case .welcome(let welcome) = try await wait(for: .welcome, until: deadline) else {
            throw PreflightError(code: .malformed, message: "signaling: no welcome in answer to hello")
        }
        return welcome
    }

    /// Places a call: sends the invite and waits for the answer (ringing arrives on ``events``
    /// meanwhile).
    /// - Throws: ``PreflightError``: the edge's error, `.signalingTimeout` when there is no answer
    ///   within the timeout, or why the connection failed.
    public func invite(_ invite: SignalingMessage.Invite) async throws(PreflightError) -> SignalingMessage.Answer {
        let deadline = ContinuousClock.now + configuration.timeout
        try await send(.invite(invite))
        guard case .answer(let answer) = try await wait(for: .answer, until: deadline) else {
            throw PreflightError(code: .malformed, message: "signaling: no answer to the invite")
        }
        return answer
    }

    /// Hangs up a call (best effort: the connection may be gone).
    public func hangup(callSid: String, reason: String) async {
        try? await send(.hangup(.init(callSid: callSid, reason: reason)))
    }

    /// Sends a message.
    /// - Throws: ``PreflightError`` `.signalingDisconnected` when the connection is not open.
    public func send(_ message: SignalingMessage) async throws(PreflightError) {
        try await connection.send(message)
    }

    /// Closes the connection normally; ``events`` ends with ``Event/closed(_:)`` `nil`.
    public func close() async {
        await connection.close()
    }
}

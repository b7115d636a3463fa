import Logging
import NIOCore
import PreflightCore
import Synchronization

/// The client side of the signaling protocol (docs/protocol.md) over a ``SignalingConnection``:
/// ``connect()`` signs in (hello → welcome), ``invite(_:)`` places a call and returns its answer,
/// and what the edge pushes on its own (ringing, hangup, errors) arrives on ``events``. Every
/// request waits at most ``SignalingClientConfiguration/timeout``: one place for signaling
/// timeouts and errors. With ``SignalingClientConfiguration/resumesSession`` a lost connection is
/// replaced by a new one that resumes the session (``Event/reconnecting(_:)``, then
/// ``Event/reconnected`` or ``Event/closed(_:)``).
///
/// Start ``run()`` in a task first; it ends when the session does.
public final class SignalingClient: Sendable {
    /// What the edge did that no request waited for, and the connection's changes.
    public enum Event: Sendable {
        /// A message no request was waiting for: ringing, hangup, an error outside a request…
        case message(SignalingMessage)
        /// The connection was lost; a new one is resuming the session.
        case reconnecting(PreflightError)
        /// The session goes on over a new connection.
        case reconnected
        /// The session ended: `nil` after ``close()``, else why.
        case closed(PreflightError?)
    }

    /// The edge's unrequested messages and the connection's changes, then ``Event/closed(_:)``.
    public let events: AsyncStream<Event>
    /// The client's settings.
    public let configuration: SignalingClientConfiguration
    let eventContinuation: AsyncStream<Event>.Continuation
    let connection: Mutex<SignalingConnection>
    let logger: Logger
    let state = Mutex(State())

    enum Awaited: Hashable, Sendable {
        case open, welcome, answer, resumed, registered
    }

    typealias Waiter = CheckedContinuation<Result<SignalingMessage?, PreflightError>, Never>

    struct State: Sendable {
        var isOpen = false
        /// Set when the session ended: why (`nil` inside: closed by us).
        var ended: PreflightError??
        var waiters: [Awaited: Waiter] = [:]
        /// From the welcome: what a new connection needs to resume the session.
        var resume: SignalingMessage.Resume?
        var closing = false
        /// A response that came before its request began waiting (the edge answered faster than
        /// the request registered): the wait takes it at once.
        var early: [Awaited: SignalingMessage] = [:]
        /// The edge's error when no request waited for it: the next wait fails with it.
        var refusal: PreflightError?
    }

    /// Creates a client; nothing happens until ``run()``.
    public init(configuration: SignalingClientConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        connection = Mutex(Self.makeConnection(configuration, logger: logger))
        (events, eventContinuation) = AsyncStream<Event>.makeStream()
    }

    static func makeConnection(_ configuration: SignalingClientConfiguration, logger: Logger) -> SignalingConnection {
        SignalingConnection(
            url: configuration.url, trustedCertificatesFile: configuration.trustedCertificatesFile, writeTimeout: configuration.timeout,
            logger: logger)
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
        if let token = welcome.resumeToken {
            state.withLock { $0.resume = SignalingMessage.Resume(sessionId: welcome.sessionId, resumeToken: token) }
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

    /// Starts a last-mile probe: sends `probe` and waits for the edge's `answer` (application `"probe"`).
    /// - Throws: ``PreflightError``: the edge's error (70301 for bitrates out of range),
    ///   `.signalingTimeout`, or why the connection failed.
    public func probe(_ probe: SignalingMessage.Probe) async throws(PreflightError) -> SignalingMessage.Answer {
        let deadline = ContinuousClock.now + configuration.timeout
        try await send(.probe(probe))
        guard case .answer(let answer) = try await wait(for: .answer, until: deadline) else {
            throw PreflightError(code: .malformed, message: "signaling: no answer to the probe")
        }
        return answer
    }

    /// Starts a connectivity check: sends `connectivityCheck` and waits for the edge's `answer`
    /// (application `"connectivity-check"`, with `subscribeIce`).
    /// - Throws: ``PreflightError``: the edge's error, `.signalingTimeout`, or why the connection failed.
    public func connectivityCheck(_ check: SignalingMessage.ConnectivityCheck) async throws(PreflightError) -> SignalingMessage.Answer {
        let deadline = ContinuousClock.now + configuration.timeout
        try await send(.connectivityCheck(check))
        guard case .answer(let answer) = try await wait(for: .answer, until: deadline) else {
            throw PreflightError(code: .malformed, message: "signaling: no answer to the connectivity check")
        }
        return answer
    }

    /// Registers the session for incoming calls to the token's identity; `incoming` and `cancel`
    /// messages then arrive on ``events``.
    /// - Returns: the identity the edge registered.
    /// - Throws: ``PreflightError``: the edge's error (20106 when the token does not allow
    ///   incoming calls), `.signalingTimeout`, or why the connection failed.
    public func register() async throws(PreflightError) -> String {
        let deadline = ContinuousClock.now + configuration.timeout
        try await send(.register)
        guard case .registered(let identity) = try await wait(for: .registered, until: deadline) else {
            throw PreflightError(code: .malformed, message: "signaling: no registered in answer to register")
        }
        return identity
    }

    /// Hangs up a call (best effort: the connection may be gone).
    public func hangup(callSid: String, reason: String) async {
        try? await send(.hangup(.init(callSid: callSid, reason: reason)))
    }

    /// Sends a message on the current connection.
    /// - Throws: ``PreflightError`` `.signalingDisconnected` when the connection is not open.
    public func send(_ message: SignalingMessage) async throws(PreflightError) {
        try await connection.withLock { $0 }.send(message)
    }

    /// Drops the current connection when its socket leaves by one of `addresses` (a network that
    /// went away: its TCP connection would only time out). A client that resumes its session
    /// (``SignalingClientConfiguration/resumesSession``) resumes it at once on a new connection,
    /// which the routing table sends by a network that is left.
    /// - Returns: whether the connection was dropped.
    @discardableResult
    public func dropConnection(ifBoundTo addresses: Set<String>) -> Bool {
        let current = connection.withLock { $0 }
        guard let ip = current.localAddress?.ipAddress, addresses.contains(ip) else { return false }
        logger.info("signaling: the connection's network went away (\(ip)); resuming on a new connection")
        current.drop()
        return true
    }

    /// Closes the connection normally; ``events`` ends with ``Event/closed(_:)`` `nil`.
    public func close() async {
        state.withLock { $0.closing = true }
        await connection.withLock { $0 }.close()
    }
}

/// The limits that protect the edge's HTTP and WebSocket listener from slow and greedy clients.
///
/// Every accepted TCP connection counts against ``maximumConnections`` and
/// ``maximumConnectionsPerAddress``; one beyond either is closed at once, before TLS or HTTP, and
/// counted as refused. Until its request head is complete (`CRLF CRLF`) a connection has
/// ``headerTimeout``; a connection on which nothing is read or written for ``idleTimeout`` is
/// closed. A connection upgraded to the signaling WebSocket leaves both timeouts behind: the
/// signaling session has its own (``EdgeConfiguration/signalingTimeout``,
/// ``EdgeConfiguration/maximumTestDuration``), and a test call may be quiet on signaling while
/// media flows. The edge pings each WebSocket every ``webSocketPingInterval`` instead, and
/// closes one that leaves a ping unanswered until the next.
public struct EdgeHTTPLimits: Sendable, Hashable {
    /// How long a connection may take to send a complete request head, counted from when it was
    /// accepted (the TLS handshake included) or, on a kept-alive connection, from the first byte
    /// of the next request; 10 s by default.
    public var headerTimeout: Duration
    /// How long an HTTP connection may go without a byte read or written before it is closed;
    /// 60 s by default. Not applied once the connection is a WebSocket.
    public var idleTimeout: Duration
    /// Connections open at once, in all; 2048 by default.
    public var maximumConnections: Int
    /// Connections open at once from one source IP address; 64 by default.
    public var maximumConnectionsPerAddress: Int
    /// How often the edge pings a signaling WebSocket (RFC 6455 §5.5.2), and how long a ping may go
    /// unanswered before the connection is closed; each connection's first ping comes at a
    /// random point of the first interval, so that connections opened together do not ping
    /// together. 30 s by default; `nil` sends no pings.
    public var webSocketPingInterval: Duration?

    /// Creates limits; see each property for its default.
    public init(
        headerTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(60),
        maximumConnections: Int = 2048,
        maximumConnectionsPerAddress: Int = 64,
        webSocketPingInterval: Duration? = .seconds(30)
    ) {
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
        self.webSocketPingInterval = webSocketPingInterval
    }
}

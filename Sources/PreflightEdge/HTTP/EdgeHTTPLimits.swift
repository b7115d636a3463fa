/// The limits that protect the edge's HTTP and WebSocket listener from slow and greedy clients.
///
/// Every accepted TCP connection counts against ``maximumConnections`` and
/// ``maximumConnectionsPerAddress`` (its source: an IPv4 address, or an IPv6 address's first
/// ``ipv6PrefixLength`` bits); one beyond the per-source cap is closed at once, before TLS or
/// HTTP, and counted as refused. When all ``maximumConnections`` are open, a connection from a
/// source that holds fewer than the heaviest source takes the place of that source's newest
/// connection (counted as preempted), and one from a source as heavy as any is refused. Until its request head is complete (`CRLF CRLF`) a connection has
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
    /// Connections open at once from one source (an IPv4 address, an IPv6 prefix of
    /// ``ipv6PrefixLength`` bits); 64 by default.
    public var maximumConnectionsPerAddress: Int
    /// How many leading bits of a client's IPv6 address name its source for
    /// ``maximumConnectionsPerAddress`` and the fair sharing of ``maximumConnections``: 64 by
    /// default, one subnet, since any host on a /64 can take as many of its addresses as it likes
    /// (RFC 4291, "IP Version 6 Addressing Architecture", §2.5.1; RFC 4862). 56 or 48 count a
    /// whole customer site as one source (RFC 6177, "IPv6 Address Assignment to End Sites"); 128
    /// counts each address. ``ipv6PrefixLengths`` are allowed. An IPv4-mapped address
    /// (`::ffff:a.b.c.d`) counts as its IPv4 address.
    public var ipv6PrefixLength: Int
    /// How often the edge pings a signaling WebSocket (RFC 6455 §5.5.2), and how long a ping may go
    /// unanswered before the connection is closed; each connection's first ping comes at a
    /// random point of the first interval, so that connections opened together do not ping
    /// together. 30 s by default; `nil` sends no pings.
    public var webSocketPingInterval: Duration?

    /// The values ``ipv6PrefixLength`` may take, 32 to 128: a /32 is the smallest block a
    /// regional registry allocates to a provider, so a shorter prefix would count all of a
    /// provider's customers (or several providers') as one source, where one attacker crowds out
    /// everyone; a /128 is one address.
    public static let ipv6PrefixLengths = 32...128

    /// The longest request head (request line and header fields) read, bytes; a longer one is
    /// answered 431 and the connection closed. 16 KiB by default: an access token's
    /// `Authorization` is at most 8 KiB, an API key's 1 KiB.
    public var maximumHeadLength = 16 * 1024

    /// Creates limits; see each property for its default.
    public init(
        headerTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(60),
        maximumConnections: Int = 2048,
        maximumConnectionsPerAddress: Int = 64,
        ipv6PrefixLength: Int = 64,
        webSocketPingInterval: Duration? = .seconds(30)
    ) {
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
        self.ipv6PrefixLength = ipv6PrefixLength
        self.webSocketPingInterval = webSocketPingInterval
    }
}

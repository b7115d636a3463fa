import NIOCore
import NIOEmbedded
@testable import PreflightEdge
import Testing

/// ``HTTPTimeoutHandler`` on an `EmbeddedChannel` with virtual time.
@Suite struct HTTPTimeoutHandlerTests {
    static let limits = EdgeHTTPLimits(headerTimeout: .seconds(10), idleTimeout: .seconds(60))

    static func connection() throws -> (EmbeddedChannel, EmbeddedEventLoop, HTTPConnectionLimiter) {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        let limiter = HTTPConnectionLimiter(maximumConnections: 10, maximumConnectionsPerAddress: 10)
        try channel.pipeline.syncOperations.addHandler(HTTPTimeoutHandler(limits: limits, limiter: limiter))
        try channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        return (channel, loop, limiter)
    }

    @Test func halfAHeadIsClosedAtTheHeaderTimeout() throws {
        let (channel, loop, limiter) = try Self.connection()
        try channel.writeInbound(ByteBuffer(string: "GET /healthz HTTP/1.1\r\nHost: edge\r\n"))
        loop.advanceTime(by: .seconds(9))
        try channel.writeInbound(ByteBuffer(string: "X-Slow: 1\r\n"))  // more bytes do not extend it
        loop.advanceTime(by: .milliseconds(999))
        #expect(channel.isActive)
        loop.advanceTime(by: .milliseconds(2))
        #expect(!channel.isActive)
        #expect(limiter.counters.headerTimeouts == 1)
        #expect(limiter.counters.idleTimeouts == 0)
    }

    /// A head over the cap, in one read or trickled in many, is answered 431 and closed; nothing of
    /// it past the cap reaches the HTTP decoder. One at the cap goes through whole.
    @Test(arguments: [1, 1000, 20_000])
    func aHeadOverTheCapIs431(readSize: Int) throws {
        let (channel, _, limiter) = try Self.connection()
        let head = "GET /status HTTP/1.1\r\nAuthorization: Basic " + String(repeating: "A", count: 80_000) + "\r\n\r\n"
        var passed = 0
        var bytes = Array(head.utf8)[...]
        while !bytes.isEmpty, channel.isActive {
            let chunk = bytes.prefix(readSize)
            bytes = bytes.dropFirst(readSize)
            try channel.writeInbound(ByteBuffer(bytes: chunk))
            while let forwarded: ByteBuffer = try channel.readInbound() { passed += forwarded.readableBytes }
        }
        let answer: ByteBuffer? = try channel.readOutbound()
        #expect(answer.map { String(buffer: $0) } == HTTPTimeoutHandler.headTooLarge)
        #expect(!channel.isActive)
        #expect(passed <= Self.limits.maximumHeadLength, "\(passed) bytes reached the decoder")
        #expect(limiter.counters.headsTooLarge == 1)
    }

    @Test func aHeadAtTheCapGoesThrough() throws {
        let (channel, _, limiter) = try Self.connection()
        let prefix = "GET /status HTTP/1.1\r\nX: "
        let head = prefix + String(repeating: "A", count: Self.limits.maximumHeadLength - prefix.utf8.count - 4) + "\r\n\r\n"
        #expect(head.utf8.count == Self.limits.maximumHeadLength)
        try channel.writeInbound(ByteBuffer(string: head))
        let forwarded: ByteBuffer? = try channel.readInbound()
        #expect(forwarded?.readableBytes == head.utf8.count)
        #expect(channel.isActive)
        #expect(limiter.counters.headsTooLarge == 0)
    }

    /// A request that is never answered (its body trickling in, or bytes after a response posing
    /// as the next head) is closed at the header timeout: the timer runs until the response begins.
    @Test func aRequestThatIsNeverAnsweredIsClosedAtTheHeaderTimeout() throws {
        let (channel, loop, limiter) = try Self.connection()
        try channel.writeInbound(ByteBuffer(string: "GET /healthz HTTP/1.1\r\nContent-Length: 999999999\r\n\r\n"))
        try channel.writeOutbound(ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
        try channel.writeInbound(ByteBuffer(string: "\r\n\r\n"))  // "body" that looks like a head
        for _ in 0..<9 {
            loop.advanceTime(by: .seconds(1))
            try channel.writeInbound(ByteBuffer(string: "x"))  // a byte a second keeps it busy, not answered
        }
        #expect(channel.isActive)
        loop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
        #expect(limiter.counters.headerTimeouts == 1)
    }

    /// A connection the edge cannot write to (the client reads nothing) is closed after 10 s,
    /// also once upgraded to a WebSocket, where no HTTP timeout applies.
    @Test func aStalledConnectionIsClosedEvenAfterTheUpgrade() throws {
        let (channel, loop, _) = try Self.connection()
        try channel.writeInbound(ByteBuffer(string: "GET /signaling HTTP/1.1\r\nUpgrade: websocket\r\n\r\n"))
        try channel.writeOutbound(ByteBuffer(string: "HTTP/1.1 101 Switching Protocols\r\n\r\n"))
        loop.advanceTime(by: .seconds(120))
        #expect(channel.isActive)  // a quiet WebSocket is not timed out
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        loop.advanceTime(by: .seconds(9))
        #expect(channel.isActive)
        // Writable again in time: the stall is forgotten.
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        loop.advanceTime(by: .seconds(5))
        #expect(channel.isActive)
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        loop.advanceTime(by: .seconds(10))
        #expect(!channel.isActive)
    }

    @Test func aSilentConnectionIsClosedAtTheHeaderTimeout() throws {
        let (channel, loop, limiter) = try Self.connection()
        loop.advanceTime(by: .seconds(10))
        #expect(!channel.isActive)
        #expect(limiter.counters.headerTimeouts == 1)
    }

    @Test func aCompleteHeadSplitInsideItsEndIsAnsweredThenIdleCloses() throws {
        let (channel, loop, limiter) = try Self.connection()
        try channel.writeInbound(ByteBuffer(string: "GET /healthz HTTP/1.1\r\nHost: edge\r\n\r"))
        try channel.writeInbound(ByteBuffer(string: "\n"))
        loop.advanceTime(by: .seconds(5))
        #expect(channel.isActive)
        // Activity (the response) moves the idle deadline.
        try channel.writeOutbound(ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n"))
        try channel.writeOutbound(ByteBuffer(string: "{}"))
        loop.advanceTime(by: .seconds(59))
        #expect(channel.isActive)
        loop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
        #expect(limiter.counters == .init(open: 0, refused: 0, headerTimeouts: 0, idleTimeouts: 1))
    }

    @Test func theNextRequestOnAKeptAliveConnectionGetsItsOwnHeaderTimeout() throws {
        let (channel, loop, limiter) = try Self.connection()
        try channel.writeInbound(ByteBuffer(string: "GET /healthz HTTP/1.1\r\nHost: edge\r\n\r\n"))
        try channel.writeOutbound(ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
        loop.advanceTime(by: .seconds(30))  // waiting between requests: only the idle timeout runs
        #expect(channel.isActive)
        try channel.writeInbound(ByteBuffer(string: "GET /hea"))
        loop.advanceTime(by: .seconds(10))
        #expect(!channel.isActive)
        #expect(limiter.counters.headerTimeouts == 1)
    }

    @Test func anUpgradedWebSocketIsNeverTimedOut() throws {
        let (channel, loop, limiter) = try Self.connection()
        try channel.writeInbound(ByteBuffer(string: "GET /signaling HTTP/1.1\r\nHost: edge\r\nUpgrade: websocket\r\n\r\n"))
        try channel.writeOutbound(ByteBuffer(string: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n"))
        // A two-minute test call with silent signaling, and far beyond.
        loop.advanceTime(by: .seconds(3600))
        #expect(channel.isActive)
        // WebSocket frames that happen to look like a head or a response change nothing.
        try channel.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\n"))
        try channel.writeOutbound(ByteBuffer(string: "HTTP/1.1 200 OK\r\n\r\n"))
        loop.advanceTime(by: .seconds(3600))
        #expect(channel.isActive)
        #expect(limiter.counters == .init())
        _ = try channel.finish()
    }

    @Test func responseStatusReadsOnlyStatusLines() {
        #expect(HTTPTimeoutHandler.responseStatus(ByteBuffer(string: "HTTP/1.1 101 Switching Protocols\r\n")) == 101)
        #expect(HTTPTimeoutHandler.responseStatus(ByteBuffer(string: "HTTP/1.0 404 Not Found\r\n")) == 404)
        #expect(HTTPTimeoutHandler.responseStatus(ByteBuffer(string: "{\"status\":\"ok\"}")) == nil)
        #expect(HTTPTimeoutHandler.responseStatus(ByteBuffer(string: "HTTP/1.1 1x1 ")) == nil)
        #expect(HTTPTimeoutHandler.responseStatus(ByteBuffer(string: "HTTP/1.1")) == nil)
    }

    @Test func durationsBecomeTimeAmounts() {
        #expect(HTTPTimeoutHandler.timeAmount(.seconds(10)) == .seconds(10))
        #expect(HTTPTimeoutHandler.timeAmount(.milliseconds(1500)) == .milliseconds(1500))
        #expect(HTTPTimeoutHandler.timeAmount(.zero) == .milliseconds(1))
        #expect(HTTPTimeoutHandler.timeAmount(.seconds(Int64.max)) == .seconds(86_400))
    }
}

import NIOCore
import NIOEmbedded
@testable import PreflightEdge
import Testing

/// ``ConnectionLimitHandler`` on `EmbeddedChannel`s from made-up source addresses.
@Suite struct ConnectionLimitHandlerTests {
    /// A channel from `address` with the handler, connected (as an accepted connection is).
    static func connection(from address: String, limiter: HTTPConnectionLimiter) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        let source = try SocketAddress(ipAddress: address, port: 50_000)
        // The peer's address is known when the connection becomes active, as for an accepted socket.
        channel.remoteAddress = source
        try channel.pipeline.syncOperations.addHandler(ConnectionLimitHandler(limiter: limiter))
        try channel.connect(to: source).wait()
        return channel
    }

    @Test func refusesBeyondThePerAddressCapAndCountsIt() throws {
        let limiter = HTTPConnectionLimiter(maximumConnections: 10, maximumConnectionsPerAddress: 2)
        let first = try Self.connection(from: "192.0.2.1", limiter: limiter)
        let second = try Self.connection(from: "192.0.2.1", limiter: limiter)
        let third = try Self.connection(from: "192.0.2.1", limiter: limiter)
        let other = try Self.connection(from: "192.0.2.2", limiter: limiter)
        #expect(first.isActive && second.isActive && other.isActive)
        #expect(!third.isActive)
        #expect(limiter.counters == .init(open: 3, refused: 1))
        #expect(limiter.openConnections(from: "192.0.2.1") == 2)

        // What a refused connection sends goes nowhere; an admitted one's passes through.
        try third.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\n\r\n"))
        #expect(try third.readInbound(as: ByteBuffer.self) == nil)
        try first.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\n\r\n"))
        #expect(try first.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "GET / HTTP/1.1\r\n\r\n"))

        // Closing one frees its place for the next connection from that address.
        try first.close().wait()
        #expect(limiter.openConnections(from: "192.0.2.1") == 1)
        let again = try Self.connection(from: "192.0.2.1", limiter: limiter)
        #expect(again.isActive)
        #expect(limiter.counters.open == 3)
        for channel in [second, other, again] { _ = try channel.finish() }
        #expect(limiter.counters.open == 0)
    }

    @Test func refusesBeyondTheTotalCap() throws {
        let limiter = HTTPConnectionLimiter(maximumConnections: 2, maximumConnectionsPerAddress: 64)
        let first = try Self.connection(from: "192.0.2.1", limiter: limiter)
        let second = try Self.connection(from: "2001:db8::1", limiter: limiter)
        let third = try Self.connection(from: "192.0.2.3", limiter: limiter)
        #expect(first.isActive && second.isActive)
        #expect(!third.isActive)
        #expect(limiter.counters.refused == 1)
        // A refused connection releases nothing when it ends.
        #expect(limiter.counters.open == 2)
        _ = try first.finish()
        _ = try second.finish()
        #expect(limiter.counters.open == 0)
    }
}

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

    /// The source `address` counts under in `limiter`.
    static func source(_ address: String, _ limiter: HTTPConnectionLimiter) throws -> ConnectionSource {
        limiter.source(of: try SocketAddress(ipAddress: address, port: 0))
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
        #expect(limiter.openConnections(from: try Self.source("192.0.2.1", limiter)) == 2)

        // What a refused connection sends goes nowhere; an admitted one's passes through.
        try third.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\n\r\n"))
        #expect(try third.readInbound(as: ByteBuffer.self) == nil)
        try first.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\n\r\n"))
        #expect(try first.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "GET / HTTP/1.1\r\n\r\n"))

        // Closing one frees its place for the next connection from that address.
        try first.close().wait()
        #expect(limiter.openConnections(from: try Self.source("192.0.2.1", limiter)) == 1)
        let again = try Self.connection(from: "192.0.2.1", limiter: limiter)
        #expect(again.isActive)
        #expect(limiter.counters.open == 3)
        for channel in [second, other, again] { _ = try channel.finish() }
        #expect(limiter.counters.open == 0)
    }

    @Test func aFullListenerRefusesASourceAsHeavyAsAnyAndPreemptsForALighterOne() throws {
        let limiter = HTTPConnectionLimiter(maximumConnections: 3, maximumConnectionsPerAddress: 64)
        let older = try Self.connection(from: "192.0.2.1", limiter: limiter)
        let newer = try Self.connection(from: "192.0.2.1", limiter: limiter)
        let light = try Self.connection(from: "2001:db8::1", limiter: limiter)
        // 192.0.2.1 holds two, 2001:db8::/64 one: the full listener refuses the heavier source.
        let refused = try Self.connection(from: "192.0.2.1", limiter: limiter)
        #expect(!refused.isActive)
        #expect(limiter.counters == .init(open: 3, refused: 1, preempted: 0))
        // A newcomer from another source takes the place of 192.0.2.1's newest connection.
        let newcomer = try Self.connection(from: "192.0.2.3", limiter: limiter)
        #expect(newcomer.isActive && older.isActive && light.isActive)
        #expect(!newer.isActive)
        #expect(limiter.counters == .init(open: 3, refused: 1, preempted: 1))
        // 192.0.2.1, 2001:db8::/64 and 192.0.2.3 hold one each now: another address of the /64
        // is refused, as heavy as any.
        let sameSubnet = try Self.connection(from: "2001:db8::99", limiter: limiter)
        #expect(!sameSubnet.isActive)
        #expect(limiter.counters.refused == 2)
        // What the preempted connection sends goes nowhere, and its end releases nothing twice.
        try newer.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\n\r\n"))
        #expect(try newer.readInbound(as: ByteBuffer.self) == nil)
        _ = try? newer.finish()
        _ = try? refused.finish()
        _ = try? sameSubnet.finish()
        #expect(limiter.counters.open == 3)
        for channel in [older, light, newcomer] { _ = try channel.finish() }
        #expect(limiter.counters.open == 0)
        #expect(limiter.sourceCount == 0)
    }

    @Test func anIPv6Slash64IsOneSourceAndAMappedAddressIsItsIPv4() throws {
        let limiter = HTTPConnectionLimiter(maximumConnections: 100, maximumConnectionsPerAddress: 2)
        let first = try Self.connection(from: "2001:db8:1::1", limiter: limiter)
        let second = try Self.connection(from: "2001:db8:1::ffff:2", limiter: limiter)
        let third = try Self.connection(from: "2001:db8:1:0:8000::3", limiter: limiter)
        let otherSubnet = try Self.connection(from: "2001:db8:1:1::1", limiter: limiter)
        #expect(first.isActive && second.isActive && otherSubnet.isActive)
        #expect(!third.isActive)
        #expect(limiter.openConnections(from: try Self.source("2001:db8:1::42", limiter)) == 2)
        // An IPv4 client seen on a dual-stack socket counts as its IPv4 address.
        let v4 = try Self.connection(from: "192.0.2.7", limiter: limiter)
        let mapped = try Self.connection(from: "::ffff:192.0.2.7", limiter: limiter)
        let mappedAgain = try Self.connection(from: "::ffff:192.0.2.7", limiter: limiter)
        #expect(v4.isActive && mapped.isActive && !mappedAgain.isActive)
        #expect(limiter.counters == .init(open: 5, refused: 2))
        for channel in [first, second, otherSubnet, v4, mapped] { _ = try channel.finish() }
        #expect(limiter.counters.open == 0)
    }

    @Test func aLongerPrefixSeparatesTheAddressesOfOneSubnet() throws {
        let limiter = HTTPConnectionLimiter(maximumConnections: 100, maximumConnectionsPerAddress: 1, ipv6PrefixLength: 128)
        let first = try Self.connection(from: "2001:db8:1::1", limiter: limiter)
        let second = try Self.connection(from: "2001:db8:1::2", limiter: limiter)
        let again = try Self.connection(from: "2001:db8:1::1", limiter: limiter)
        #expect(first.isActive && second.isActive && !again.isActive)
        let site = HTTPConnectionLimiter(maximumConnections: 100, maximumConnectionsPerAddress: 1, ipv6PrefixLength: 48)
        let home = try Self.connection(from: "2001:db8:1:1::1", limiter: site)
        let sameSite = try Self.connection(from: "2001:db8:1:2::1", limiter: site)
        #expect(home.isActive && !sameSite.isActive)
        for channel in [first, second, home] { _ = try channel.finish() }
    }
}

import NIOCore
import PreflightCore
import PreflightNIO
import Testing

/// `TransportAddress` ⇄ NIO `SocketAddress` from bytes: the same addresses the text path gives,
/// both ways, for every family (every datagram the ICE driver sends or receives goes through them).
@Suite struct SocketAddressConversionTests {
    static let texts = ["127.0.0.1", "198.18.0.2", "0.0.0.0", "255.255.255.255", "::1", "2001:db8::7:1", "::ffff:192.0.2.1", "fe80::1:2:3:4"]

    @Test(arguments: texts)
    func aTransportAddressBecomesTheSocketAddressOfItsText(text: String) throws {
        let address = try #require(TransportAddress(host: text, port: 50_123))
        let socket = try #require(address.socketAddress)
        let parsed = try SocketAddress(ipAddress: text, port: 50_123)
        #expect(socket == parsed)
        #expect(socket.port == 50_123)
        #expect(socket.ipAddress == parsed.ipAddress)
    }

    @Test(arguments: texts)
    func aSocketAddressBecomesTheTransportAddressOfItsText(text: String) throws {
        let socket = try SocketAddress(ipAddress: text, port: 9)
        let address = try #require(TransportAddress(socket))
        #expect(address == TransportAddress(host: text, port: 9))
        #expect(TransportAddress(try #require(address.socketAddress)) == address)
    }

    @Test func aUnixDomainSocketHasNoTransportAddress() throws {
        #expect(TransportAddress(try SocketAddress(unixDomainSocketPath: "/tmp/preflight-test.sock")) == nil)
    }
}

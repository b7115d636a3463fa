import PreflightCore
import Testing

/// ICMP errors as an ICMP datagram socket reads them (the Apple backend's input), built byte by byte.
@Suite struct ICMPMessageTests {
    static let probe: (STUNTransactionID, [UInt8]) = {
        let id = STUNTransactionID(high: 7, low: 9)
        let bytes = (try? STUNMessage(type: STUNMessageType(method: .binding, class: .request), transactionID: id, attributes: []).encoded()) ?? []
        return (id, bytes)
    }()

    static func ipv4Header(protocol number: UInt8, source: [UInt8], destination: [UInt8]) -> [UInt8] {
        [0x45, 0, 0, 0, 0, 0, 0, 0, 1, number, 0, 0] + source + destination
    }

    static func udp(source: UInt16, destination: UInt16, payload: [UInt8]) -> [UInt8] {
        [UInt8(source >> 8), UInt8(source & 0xFF), UInt8(destination >> 8), UInt8(destination & 0xFF), 0, UInt8(8 + payload.count), 0, 0] + payload
    }

    @Test func timeExceededQuotingAProbe() throws {
        let quoted = Self.ipv4Header(protocol: 17, source: [10, 0, 0, 2], destination: [203, 0, 113, 5])
            + Self.udp(source: 50000, destination: 40000, payload: Self.probe.1)
        let bytes = Self.ipv4Header(protocol: 1, source: [198, 51, 100, 1], destination: [10, 0, 0, 2]) + [11, 0, 0, 0, 0, 0, 0, 0] + quoted
        let message = try #require(ICMPMessage(parsing: bytes, ipv6: false))
        #expect(message.kind == .timeExceeded)
        #expect(message.quotedDestination == "203.0.113.5" && message.quotedDestinationPort == 40000 && message.quotedSourcePort == 50000)
        #expect(message.transactionID == Self.probe.0)
        #expect(message.sender == "198.51.100.1")
        // Without the outer IP header: the same error, its sender left to the socket's address.
        let bare = try #require(ICMPMessage(parsing: Array(bytes.dropFirst(20)), ipv6: false))
        #expect(bare.kind == .timeExceeded && bare.transactionID == Self.probe.0 && bare.sender == nil)
        // RFC 792's 8 bytes: the ports, no ID.
        let short = Array(bytes.prefix(20 + 8 + 20 + 8))
        let shortMessage = try #require(ICMPMessage(parsing: short, ipv6: false))
        #expect(shortMessage.transactionID == nil && shortMessage.quotedSourcePort == 50000)
    }

    @Test func icmpv6PortUnreachable() throws {
        var inner: [UInt8] = [0x60, 0, 0, 0, 0, 28, 17, 64] + [UInt8](repeating: 0, count: 16)
        inner += [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [5]
        let bytes: [UInt8] = [1, 4, 0, 0, 0, 0, 0, 0] + inner + Self.udp(source: 1234, destination: 3478, payload: Self.probe.1)
        let message = try #require(ICMPMessage(parsing: bytes, ipv6: true))
        #expect(message.kind == .unreachable(code: 4))
        #expect(message.quotedDestination == "2001:db8::5" && message.quotedDestinationPort == 3478)
    }

    @Test func anythingElseIsNothing() {
        let echoReply = Self.ipv4Header(protocol: 1, source: [1, 2, 3, 4], destination: [5, 6, 7, 8]) + [0, 0, 0, 0, 0, 1, 0, 1]
        #expect(ICMPMessage(parsing: echoReply, ipv6: false) == nil)
        let tcpQuote = Self.ipv4Header(protocol: 1, source: [1, 2, 3, 4], destination: [5, 6, 7, 8]) + [11, 0, 0, 0, 0, 0, 0, 0]
            + Self.ipv4Header(protocol: 6, source: [5, 6, 7, 8], destination: [9, 9, 9, 9]) + [0, 1, 0, 2, 0, 0, 0, 0]
        #expect(ICMPMessage(parsing: tcpQuote, ipv6: false) == nil)
        #expect(ICMPMessage(parsing: [], ipv6: false) == nil)
        #expect(ICMPMessage(parsing: [0x4F] + [UInt8](repeating: 0, count: 30), ipv6: false) == nil)
        #expect(ICMPMessage(parsing: [3, 0, 0, 0, 0, 0, 0, 0, 0x60], ipv6: true) == nil)
    }
}

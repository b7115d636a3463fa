/// An ICMP or ICMPv6 error as an ICMP datagram socket reads it (Apple platforms'
/// `socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP)`, which hands every ICMP message for the host to
/// an unprivileged reader): what it says, and which datagram it quotes. Pure, so that it can be
/// tested and fuzzed on any platform (`FuzzPathErrorQueue`).
///
/// An IPv4 read starts with the IP header (its length from the header itself), as Darwin's
/// ICMP datagram sockets hand it, or with the ICMP header (an error's type, 3 or 11, cannot be
/// taken for an IPv4 header's first byte); an ICMPv6 read starts with the ICMPv6 header. The
/// error quotes the datagram that caused it (RFC 792: its IP header and at least 8 bytes; RFC 1812
/// and RFC 4443: as much as fits): the quoted UDP header's ports and the quoted destination say
/// whose probe it was, its first 20 payload bytes the probe's STUN transaction ID.
public struct ICMPMessage: Sendable, Hashable {
    /// What the error says (as ``ICMPErrorReport/Kind``).
    public let kind: ICMPErrorReport.Kind
    /// The quoted datagram's destination address (text).
    public let quotedDestination: String
    /// Its destination port.
    public let quotedDestinationPort: UInt16
    /// Its source port (the probing socket's, for a probe).
    public let quotedSourcePort: UInt16
    /// The probe's transaction ID when the quote carried it.
    public let transactionID: STUNTransactionID?
    /// The router that sent it: the IPv4 header's source when the read carried the header
    /// (otherwise the socket's sender address says).
    public let sender: String?

    /// Parses `bytes`; `nil` for anything but an error quoting a UDP datagram (an echo reply, a
    /// truncated quote, another protocol). `ipv6`: whether it came from an ICMPv6 socket.
    public init?(parsing bytes: [UInt8], ipv6: Bool) {
        var offset = 0
        var sender: String?
        if !ipv6, let first = bytes.first, first >> 4 == 4 {
            guard bytes.count >= 20 else { return nil }
            offset = Int(first & 0x0F) * 4
            guard offset >= 20 else { return nil }
            sender = TransportAddress(bytes: bytes[12..<16], port: 0)?.host
        }
        self.sender = sender
        guard bytes.count >= offset + 8 else { return nil }
        let type = bytes[offset], code = bytes[offset + 1]
        let quote = offset + 8
        let udp: Int
        if ipv6 {
            switch type {
            case 3: kind = .timeExceeded
            case 1: kind = .unreachable(code: code)
            default: return nil
            }
            // The quoted IPv6 header: 40 bytes, the next header UDP (17) with no extension header.
            guard bytes.count >= quote + 40 + 8, bytes[quote] >> 4 == 6, bytes[quote + 6] == 17 else { return nil }
            guard let destination = TransportAddress(bytes: bytes[(quote + 24)..<(quote + 40)], port: 0) else { return nil }
            quotedDestination = destination.host
            udp = quote + 40
        } else {
            switch type {
            case 11: kind = .timeExceeded
            case 3: kind = .unreachable(code: code)
            default: return nil
            }
            guard bytes.count >= quote + 20, bytes[quote] >> 4 == 4 else { return nil }
            let inner = Int(bytes[quote] & 0x0F) * 4
            guard inner >= 20, bytes[quote + 9] == 17, bytes.count >= quote + inner + 8 else { return nil }
            guard let destination = TransportAddress(bytes: bytes[(quote + 16)..<(quote + 20)], port: 0) else { return nil }
            quotedDestination = destination.host
            udp = quote + inner
        }
        quotedSourcePort = UInt16(bytes[udp]) << 8 | UInt16(bytes[udp + 1])
        quotedDestinationPort = UInt16(bytes[udp + 2]) << 8 | UInt16(bytes[udp + 3])
        transactionID = ICMPErrorReport.probeTransactionID(bytes[(udp + 8)...])
    }
}

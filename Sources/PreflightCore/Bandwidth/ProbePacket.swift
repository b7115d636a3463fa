/// The packets of a last-mile probe (docs/protocol.md): RTP with payload type 127, the sender's
/// send time in the ``MediaExtension`` (element 1 from the client, element 4 from the edge), and a
/// payload that starts with the probe's own 32-bit sequence number (big-endian) and is zero after
/// it, up to the packet's size. The probe's sequence number starts at 0 in each direction and does
/// not wrap within a probe, so a receiver needs no RTP sequence unwrapping.
public enum ProbePacket {
    /// The RTP payload type of probe packets (dynamic range, RFC 3551).
    public static let payloadType: UInt8 = 127
    /// The smallest probe packet, UDP payload bytes.
    public static let minimumSize = 200
    /// The largest probe packet, UDP payload bytes: with IPv6 and TURN's 36-byte Send indication
    /// still under a 1,500-byte MTU.
    public static let maximumSize = 1200
    /// RTP header (12) plus the send-time extension (4 + 1 + 8, padded to 12).
    static let headerBytes = 28

    /// Bytes a bottleneck counts for each packet beyond its UDP payload: the 14-byte link header,
    /// 8 of UDP and 20 of IPv4 (42), or 40 of IPv6 (62). tbf counts these; counting payload only
    /// reads 17 % low at 200-byte packets.
    public static func wireOverhead(ipv6: Bool) -> Int {
        ipv6 ? 62 : 42
    }

    /// Encodes one probe packet of `size` UDP payload bytes (clamped to 200…1200).
    /// - Parameter fromEdge: the edge's packets carry their send time in element 4, the client's in 1.
    public static func encode(sequence: UInt32, sendMicroseconds: UInt64, ssrc: UInt32, size: Int, fromEdge: Bool) -> [UInt8]? {
        let total = min(max(size, minimumSize), maximumSize)
        var payload = [UInt8](repeating: 0, count: total - headerBytes)
        payload[0] = UInt8(truncatingIfNeeded: sequence >> 24)
        payload[1] = UInt8(truncatingIfNeeded: sequence >> 16)
        payload[2] = UInt8(truncatingIfNeeded: sequence >> 8)
        payload[3] = UInt8(truncatingIfNeeded: sequence)
        let packet = RTPPacket(
            payloadType: payloadType, sequenceNumber: UInt16(truncatingIfNeeded: sequence),
            timestamp: UInt32(truncatingIfNeeded: sendMicroseconds / 125), ssrc: ssrc,
            headerExtension: fromEdge
                ? MediaExtension.edgeExtension(sendMicroseconds: sendMicroseconds)
                : MediaExtension.clientExtension(sendMicroseconds: sendMicroseconds),
            payload: payload[...])
        return try? packet.encoded()
    }

    /// The probe sequence number and send time of a parsed RTP packet; `nil` when it is not a
    /// probe packet (another payload type, a payload under 4 bytes, or no send time).
    public static func decode(_ header: RTPHeader, in bytes: UnsafeRawBufferPointer) -> (sequence: UInt32, sendMicroseconds: UInt64)? {
        guard header.payloadType == payloadType, header.payloadRange.count >= 4 else { return nil }
        guard let sent = MediaExtension.sendTime(header, in: bytes) ?? MediaExtension.edgeSendTime(header, in: bytes) else { return nil }
        let start = header.payloadRange.lowerBound
        let sequence = (UInt32(bytes[start]) << 24) | (UInt32(bytes[start + 1]) << 16) | (UInt32(bytes[start + 2]) << 8) | UInt32(bytes[start + 3])
        return (sequence, sent)
    }

    /// The packet size for a rate: about 150 packets a second, within 200…1200 bytes, so that a
    /// slow path still gives enough packets for statistics and a fast one not too many.
    public static func size(forRate bitsPerSecond: Double) -> Int {
        guard bitsPerSecond.isFinite, bitsPerSecond > 0 else { return minimumSize }
        return Int(min(max(bitsPerSecond / 8 / 150, Double(minimumSize)), Double(maximumSize)))
    }
}

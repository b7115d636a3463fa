extension PacketKind {
    /// Classifies a datagram by its first byte (RFC 7983 §7) and, for RTP/RTCP, its second byte
    /// (RFC 5761 §4: RTCP packet types 192–223 there, which as RTP would be payload types 64–95 with the
    /// marker bit set). Reads at most two bytes and never allocates.
    @inlinable
    public static func classify(_ datagram: ArraySlice<UInt8>) -> PacketKind {
        datagram.withUnsafeBytes { classify($0) }
    }

    /// Classifies a datagram in raw memory (a NIO buffer's readable bytes); see
    /// ``classify(_:)-(ArraySlice<UInt8>)``.
    @inlinable
    public static func classify(_ datagram: UnsafeRawBufferPointer) -> PacketKind {
        guard let first = datagram.first else { return .unknown }
        switch first {
        case 0...3: return .stun
        case 16...19: return .zrtp
        case 20...63: return .dtls
        case 64...79: return .turnChannel
        case 128...191:
            guard datagram.count >= 2 else { return .unknown }
            return (192...223).contains(datagram[1]) ? .rtcp : .rtp
        default: return .unknown
        }
    }

    /// Classifies a datagram; see ``classify(_:)-(ArraySlice<UInt8>)``.
    @inlinable
    public static func classify(_ datagram: [UInt8]) -> PacketKind {
        classify(datagram[...])
    }
}

/// What a packet arriving on a media port is, judged by its first bytes (RFC 7983, RFC 5761).
public enum PacketKind: Hashable, Sendable, CaseIterable {
    /// STUN (first byte 0–3).
    case stun
    /// ZRTP (first byte 16–19).
    case zrtp
    /// DTLS (first byte 20–63).
    case dtls
    /// TURN ChannelData (first byte 64–79).
    case turnChannel
    /// RTP (first byte 128–191, second byte outside 192–223).
    case rtp
    /// RTCP (first byte 128–191, packet type 192–223 in the second byte).
    case rtcp
    /// Anything else, including empty input.
    case unknown
}

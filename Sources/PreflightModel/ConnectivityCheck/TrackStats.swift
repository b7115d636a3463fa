/// 100ms's `HMSRTCStats` for one kind of media (audio or video) of a connectivity check: what
/// went up on the publish connection and what came back down on the subscribe connection.
public struct TrackStats: Sendable, Hashable, Codable {
    /// RTP bytes sent on the publish connection (headers included).
    public var bytesSent: Int64
    /// RTP bytes received on the subscribe connection (headers included).
    public var bytesReceived: Int64
    /// RTP packets received on the subscribe connection.
    public var packetsReceived: Int64
    /// Packets sent but lost on the way to the edge (its RTCP receiver reports on the publish
    /// connection, RFC 3550 cumulative loss).
    public var packetsLost: Int64
    /// Mean upload bitrate while media flowed, **kbps** (RTP bytes, headers included).
    public var bitrateSent: Double
    /// Mean download bitrate while media flowed, **kbps**.
    public var bitrateReceived: Double
    /// The publish connection's round-trip time to the edge, **milliseconds** (RTCP LSR/DLSR,
    /// RFC 3550 §6.4.1; the mean of the reports); the same for audio and video. 0 when no
    /// report came back.
    public var roundTripTime: Double

    // Preflight's additions.

    /// RTP packets sent on the publish connection.
    public var packetsSent: Int64
    /// Packets the edge forwarded but that never arrived on the subscribe connection (gaps in
    /// the subscribe stream's sequence numbers).
    public var packetsLostDownlink: Int64
    /// Interarrival jitter of the subscribe stream, milliseconds (RFC 3550 §6.4.1).
    public var jitter: Double

    /// Creates the stats; every figure is 0 by default.
    public init(
        bytesSent: Int64 = 0, bytesReceived: Int64 = 0, packetsReceived: Int64 = 0, packetsLost: Int64 = 0, bitrateSent: Double = 0,
        bitrateReceived: Double = 0, roundTripTime: Double = 0, packetsSent: Int64 = 0, packetsLostDownlink: Int64 = 0,
        jitter: Double = 0
    ) {
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.packetsReceived = packetsReceived
        self.packetsLost = packetsLost
        self.bitrateSent = bitrateSent
        self.bitrateReceived = bitrateReceived
        self.roundTripTime = roundTripTime
        self.packetsSent = packetsSent
        self.packetsLostDownlink = packetsLostDownlink
        self.jitter = jitter
    }
}

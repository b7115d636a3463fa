/// The audio a call sends (WebRTC's `outbound-rtp` with its `remote-inbound-rtp`; Twilio's
/// `TVOLocalAudioTrackStats`).
public struct LocalAudioTrackStats: Sendable, Hashable, Codable {
    /// The track's identifier.
    public var trackId: String
    /// The RTP stream's SSRC.
    public var ssrc: UInt32
    /// The codec, e.g. `"PCMU"`.
    public var codec: String
    /// RTP packets sent.
    public var packetsSent: Int
    /// RTP bytes sent (UDP payload).
    public var bytesSent: Int
    /// Packets the edge reports lost on the way to it (its RTCP report blocks).
    public var packetsLost: Int
    /// Round-trip time to the edge, ms (RTCP LSR/DLSR).
    public var roundTripTime: Double
    /// The edge's interarrival jitter of this stream, ms.
    public var jitter: Double
    /// The level of the last frame sent, 0…32767 (0 while muted or on hold).
    public var audioLevel: Int

    /// Creates the statistics.
    public init(
        trackId: String, ssrc: UInt32, codec: String, packetsSent: Int, bytesSent: Int, packetsLost: Int,
        roundTripTime: Double, jitter: Double, audioLevel: Int
    ) {
        self.trackId = trackId
        self.ssrc = ssrc
        self.codec = codec
        self.packetsSent = packetsSent
        self.bytesSent = bytesSent
        self.packetsLost = packetsLost
        self.roundTripTime = roundTripTime
        self.jitter = jitter
        self.audioLevel = audioLevel
    }
}

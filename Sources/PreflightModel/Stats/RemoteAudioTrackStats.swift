/// The audio a call receives (WebRTC's `inbound-rtp`; Twilio's `TVORemoteAudioTrackStats`).
public struct RemoteAudioTrackStats: Sendable, Hashable, Codable {
    /// The track's identifier.
    public var trackId: String
    /// The RTP stream's SSRC (the edge's stream towards this device).
    public var ssrc: UInt32
    /// The codec, e.g. `"PCMU"`.
    public var codec: String
    /// RTP packets received.
    public var packetsReceived: Int
    /// RTP bytes received (UDP payload).
    public var bytesReceived: Int
    /// Packets lost on the way here (RFC 3550 cumulative loss).
    public var packetsLost: Int
    /// RFC 3550 interarrival jitter, ms.
    public var jitter: Double
    /// The level of the last frame received, 0…32767.
    public var audioLevel: Int
    /// The mean opinion score of the last second (1…4.5), the preflight test's MOS.
    public var mos: Double

    /// Creates the statistics.
    public init(
        trackId: String, ssrc: UInt32, codec: String, packetsReceived: Int, bytesReceived: Int, packetsLost: Int,
        jitter: Double, audioLevel: Int, mos: Double
    ) {
        self.trackId = trackId
        self.ssrc = ssrc
        self.codec = codec
        self.packetsReceived = packetsReceived
        self.bytesReceived = bytesReceived
        self.packetsLost = packetsLost
        self.jitter = jitter
        self.audioLevel = audioLevel
        self.mos = mos
    }
}

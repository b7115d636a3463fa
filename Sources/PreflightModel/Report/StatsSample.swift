/// One stats sample, taken once a second during a test call.
///
/// Field names and JSON shapes are those of the `statsSamples` entries of the example report
/// of "Twilio Voice SDK: PreflightTest" (docs/references.md), so that existing dashboards read ours. Note that `timestamp` is a
/// JSON *string* there (milliseconds since the Unix epoch with six decimals); this type keeps it
/// as a number in Swift and writes it as such a string.
public struct StatsSample: Sendable, Hashable, Codable {
    /// When the sample was taken: milliseconds since 1970-01-01T00:00:00Z (JSON: a string, `"%.6f"`).
    public var timestamp: Double
    /// Round-trip time of the last second, in milliseconds.
    public var rtt: Double
    /// RFC 3550 interarrival jitter of the received stream, in milliseconds.
    public var jitter: Double
    /// Mean opinion score, 1.0 to 4.5 (``MeanOpinionScore``, docs/measurement.md).
    public var mos: Double
    /// Cumulative packets lost (expected minus received, RFC 3550; duplicates and reordering are not loss).
    public var packetsLost: Int
    /// Packets lost in the last second as a percentage of packets expected in it, 0 to 100.
    public var packetsLostFraction: Double
    /// Cumulative RTP packets sent.
    public var packetsSent: Int
    /// Cumulative RTP packets received.
    public var packetsReceived: Int
    /// Cumulative RTP payload-and-header bytes sent (UDP payload bytes).
    public var bytesSent: Int
    /// Cumulative RTP payload-and-header bytes received (UDP payload bytes).
    public var bytesReceived: Int
    /// Audio codec in use (`"PCMU"`, `"opus"`), empty before media flows.
    public var codec: String
    /// Level of the audio sent, 0 to 32767 (peak absolute 16-bit PCM sample of the last frame period).
    public var audioInputLevel: Int
    /// Level of the audio received, 0 to 32767.
    public var audioOutputLevel: Int

    // MARK: Added fields (not in the reference report; omitted from JSON when nil)

    /// Client → edge: jitter and loss as the edge received the client's stream.
    public var uplink: DirectionStats?
    /// Edge → client: jitter and loss of the stream the client received.
    public var downlink: DirectionStats?
    /// The ITU-T G.107 E-model MOS of this second (G.711 with PLC, jitter buffer of 2·jitter plus
    /// one 20 ms frame), beside the simplified ``mos``.
    public var eModelMOS: Double?

    /// Creates a sample. Every counter defaults to zero.
    public init(
        timestamp: Double,
        rtt: Double = 0,
        jitter: Double = 0,
        mos: Double = 0,
        packetsLost: Int = 0,
        packetsLostFraction: Double = 0,
        packetsSent: Int = 0,
        packetsReceived: Int = 0,
        bytesSent: Int = 0,
        bytesReceived: Int = 0,
        codec: String = "",
        audioInputLevel: Int = 0,
        audioOutputLevel: Int = 0,
        uplink: DirectionStats? = nil,
        downlink: DirectionStats? = nil,
        eModelMOS: Double? = nil
    ) {
        self.timestamp = timestamp
        self.rtt = rtt
        self.jitter = jitter
        self.mos = mos
        self.packetsLost = packetsLost
        self.packetsLostFraction = packetsLostFraction
        self.packetsSent = packetsSent
        self.packetsReceived = packetsReceived
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.codec = codec
        self.audioInputLevel = audioInputLevel
        self.audioOutputLevel = audioOutputLevel
        self.uplink = uplink
        self.downlink = downlink
        self.eModelMOS = eModelMOS
    }
}

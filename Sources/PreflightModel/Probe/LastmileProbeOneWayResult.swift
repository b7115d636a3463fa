/// One direction of a last-mile probe, as Agora's `AgoraLastmileProbeOneWayResult`
/// (`packetLossRate`, `jitter`, `availableBandwidth`), with Preflight's added fields beside them.
///
/// Loss and jitter are of the probe packets sent below the queueing knee: past it the probe
/// itself fills the bottleneck's queue, and the losses and delays it causes are its own.
public struct LastmileProbeOneWayResult: Sendable, Hashable, Codable {
    /// Packet loss of the probe traffic below the knee, % (0–100).
    public var packetLossRate: Double
    /// RFC 3550 interarrival jitter of the same packets, ms.
    public var jitter: Double
    /// The available bandwidth, kbit/s, counted as the bottleneck counts it: each packet's UDP
    /// payload plus its IP and UDP headers and the 14-byte link header (42 B per IPv4 packet,
    /// 62 B per IPv6 packet). When ``atLeastExpected`` is true this is what the path carried
    /// without saturating: a lower bound, not the capacity. 0 without an estimate.
    public var availableBandwidth: Double

    // Added fields.

    /// This direction's state: ``LastmileProbeResultState/complete`` with an estimate,
    /// ``LastmileProbeResultState/incompleteNoBwe`` without one, ``LastmileProbeResultState/unavailable``
    /// when it never ran.
    public var state: LastmileProbeResultState
    /// The expected bitrate the probe was given, bps.
    public var expectedBitrate: Int
    /// The highest rate the probe actually sent, bps (wire bits, as ``availableBandwidth``).
    public var probedBitrate: Double
    /// Bytes this direction's probe put on the wire (as ``availableBandwidth`` counts them).
    public var bytesSent: Int
    /// Probe packets sent in this direction.
    public var packetsSent: Int
    /// Probe packets received in this direction.
    public var packetsReceived: Int
    /// Seconds this direction took, from its first probe packet to its verdict.
    public var duration: Double
    /// True when the path never saturated up to 1.5 × the expected bitrate: it holds at least the
    /// expected bitrate, and ``availableBandwidth`` is what it carried, not its capacity.
    public var atLeastExpected: Bool
    /// Why there is no estimate, when ``state`` is not complete.
    public var reason: String?
    /// Packets received after the queueing knee: the estimate's sample.
    public var packetsAfterKnee: Int
    /// The receive rate of each half of the packets after the knee, kbit/s: an estimate is accepted
    /// only when they agree within 10 %.
    public var halves: [Double]
    /// Datagrams the local receive buffer dropped while this direction ran (`RcvbufErrors` of
    /// `/proc/net/snmp` on Linux; `nil` where the counter cannot be read, or for the uplink,
    /// which the edge receives).
    public var receiveBufferErrors: Int?

    /// Creates a result.
    public init(
        packetLossRate: Double = 0, jitter: Double = 0, availableBandwidth: Double = 0, state: LastmileProbeResultState = .unavailable,
        expectedBitrate: Int = 0, probedBitrate: Double = 0, bytesSent: Int = 0, packetsSent: Int = 0, packetsReceived: Int = 0,
        duration: Double = 0, atLeastExpected: Bool = false, reason: String? = nil, packetsAfterKnee: Int = 0,
        halves: [Double] = [], receiveBufferErrors: Int? = nil
    ) {
        self.packetLossRate = packetLossRate
        self.jitter = jitter
        self.availableBandwidth = availableBandwidth
        self.state = state
        self.expectedBitrate = expectedBitrate
        self.probedBitrate = probedBitrate
        self.bytesSent = bytesSent
        self.packetsSent = packetsSent
        self.packetsReceived = packetsReceived
        self.duration = duration
        self.atLeastExpected = atLeastExpected
        self.reason = reason
        self.packetsAfterKnee = packetsAfterKnee
        self.halves = halves
        self.receiveBufferErrors = receiveBufferErrors
    }
}

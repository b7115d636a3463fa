/// What ``BandwidthEstimator`` concluded about one direction.
public struct BandwidthEstimate: Sendable, Hashable {
    /// The kind of conclusion.
    public enum Outcome: Sendable, Hashable {
        /// The path saturated: ``BandwidthEstimate/rate`` is the receive rate after the queueing knee.
        case saturated
        /// The path carried the probe's ceiling without queueing: it holds at least the expected
        /// bitrate, and ``BandwidthEstimate/rate`` is what it carried (a lower bound).
        case atLeastExpected
        /// No estimate; ``BandwidthEstimate/reason`` says why.
        case noEstimate
    }

    /// The conclusion.
    public var outcome: Outcome
    /// Bits per second on the wire (see ``ProbeArrival/wireBytes``); 0 without an estimate.
    public var rate: Double
    /// Why there is no estimate, in words.
    public var reason: String?
    /// Arrival time of the first packet after the knee (receiver's clock), if the path saturated.
    public var kneeTime: Double?
    /// Packets the rate was computed from (after the knee, or in the hold at the ceiling).
    public var packetsAfterKnee: Int
    /// The rate of each half of those packets, bits per second.
    public var halves: [Double]
    /// Loss of the packets sent before the knee, % (0–100).
    public var lossPercent: Double
    /// RFC 3550 interarrival jitter of the same packets, ms.
    public var jitterMilliseconds: Double
    /// Probe packets received in all.
    public var packetsReceived: Int
    /// The queueing-delay threshold the knee was found with, seconds.
    public var delayThreshold: Double

    /// Creates an estimate.
    public init(
        outcome: Outcome, rate: Double = 0, reason: String? = nil, kneeTime: Double? = nil, packetsAfterKnee: Int = 0,
        halves: [Double] = [], lossPercent: Double = 0, jitterMilliseconds: Double = 0, packetsReceived: Int = 0,
        delayThreshold: Double = 0
    ) {
        self.outcome = outcome
        self.rate = rate
        self.reason = reason
        self.kneeTime = kneeTime
        self.packetsAfterKnee = packetsAfterKnee
        self.halves = halves
        self.lossPercent = lossPercent
        self.jitterMilliseconds = jitterMilliseconds
        self.packetsReceived = packetsReceived
        self.delayThreshold = delayThreshold
    }
}

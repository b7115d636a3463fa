import PreflightCore

/// A call's one-second samples summarised: average, minimum and maximum of RTT, jitter, loss and
/// MOS (the preflight report's `networkStats` objects), packet totals and the warnings raised.
public struct CallSampleSummary: Sendable, Hashable, Codable {
    /// How many samples there were.
    public var sampleCount: Int
    /// Round-trip time, ms.
    public var rtt: MetricStats
    /// Interarrival jitter, ms.
    public var jitter: MetricStats
    /// Packets lost per second as a percentage of those expected.
    public var packetsLostFraction: MetricStats
    /// Mean opinion score.
    public var mos: MetricStats
    /// RTP packets sent, from the last sample.
    public var packetsSent: Int
    /// RTP packets received, from the last sample.
    public var packetsReceived: Int
    /// The names of the warnings raised at least once, in the order first raised.
    public var warningsRaised: [String]

    /// Summarises `samples` and `warnings`.
    public init(samples: [StatsSample], warnings: [CallWarningChange]) {
        sampleCount = samples.count
        rtt = MetricStats(samples.map(\.rtt))
        jitter = MetricStats(samples.map(\.jitter))
        packetsLostFraction = MetricStats(samples.map(\.packetsLostFraction))
        mos = MetricStats(samples.map(\.mos))
        packetsSent = samples.last?.packetsSent ?? 0
        packetsReceived = samples.last?.packetsReceived ?? 0
        var raised: [String] = []
        for change in warnings where change.change == .raised && !raised.contains(change.name) { raised.append(change.name) }
        warningsRaised = raised
    }
}

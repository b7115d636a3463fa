/// The report's `networkStats`: summaries of the stats samples.
public struct NetworkStats: Sendable, Hashable, Codable {
    /// RFC 3550 interarrival jitter, milliseconds.
    public var jitter: MetricStats
    /// Mean opinion score, 1.0 to 4.5.
    public var mos: MetricStats
    /// Round-trip time, milliseconds.
    public var rtt: MetricStats

    /// Creates the summaries; all zero by default.
    public init(jitter: MetricStats = MetricStats(), mos: MetricStats = MetricStats(), rtt: MetricStats = MetricStats()) {
        self.jitter = jitter
        self.mos = mos
        self.rtt = rtt
    }

    /// Summarises the jitter, MOS and RTT of `samples`.
    public init(samples: [StatsSample]) {
        self.init(
            jitter: MetricStats(samples.lazy.map(\.jitter)),
            mos: MetricStats(samples.lazy.map(\.mos)),
            rtt: MetricStats(samples.lazy.map(\.rtt))
        )
    }
}

/// Telnyx's `MetricSummary`: the smallest, largest and mean value of one metric over a
/// diagnosis call, **in seconds** for jitter and RTT as Telnyx reports them (the preflight
/// report's ``MetricStats`` are in milliseconds).
public struct MetricSummary: Sendable, Hashable, Codable {
    /// Smallest value.
    public let min: Double
    /// Largest value.
    public let max: Double
    /// Arithmetic mean.
    public let avg: Double

    /// Creates a summary.
    public init(min: Double, max: Double, avg: Double) {
        self.min = min
        self.max = max
        self.avg = avg
    }

    /// Summarises `milliseconds` in seconds; all zero for no finite value.
    public init(milliseconds: some Sequence<Double>) {
        let stats = MetricStats(milliseconds)
        self.init(min: stats.min / 1000, max: stats.max / 1000, avg: stats.average / 1000)
    }
}

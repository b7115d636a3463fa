/// One direction of the call over the whole test (an added report field): jitter summary and
/// total loss, uplink (client → edge) or downlink (edge → client).
public struct DirectionSummary: Sendable, Hashable, Codable {
    /// Average, minimum and maximum of the samples' jitter in this direction, ms.
    public var jitter: MetricStats
    /// Packets expected in this direction over the test.
    public var packetsExpected: Int
    /// Packets lost in this direction over the test.
    public var packetsLost: Int
    /// `packetsLost / packetsExpected` in %, 0 when nothing was expected.
    public var packetsLostFraction: Double

    /// Creates a summary.
    public init(jitter: MetricStats = MetricStats(), packetsExpected: Int = 0, packetsLost: Int = 0, packetsLostFraction: Double = 0) {
        self.jitter = jitter
        self.packetsExpected = packetsExpected
        self.packetsLost = packetsLost
        self.packetsLostFraction = packetsLostFraction
    }

    /// Summarises one direction of `samples`; `nil` when no sample carries it.
    public init?(samples: [StatsSample], direction: KeyPath<StatsSample, DirectionStats?>) {
        let values = samples.compactMap { $0[keyPath: direction] }
        guard let last = values.last else { return nil }
        self.init(
            jitter: MetricStats(values.lazy.map(\.jitter)), packetsExpected: last.packetsExpected,
            packetsLost: last.packetsLost,
            packetsLostFraction: last.packetsExpected > 0 ? Double(last.packetsLost) / Double(last.packetsExpected) * 100 : 0)
    }

    /// Sets the totals: packets expected and lost over the test, and their ratio.
    public mutating func setTotals(expected: Int, lost: Int) {
        packetsExpected = expected
        packetsLost = lost
        packetsLostFraction = expected > 0 ? Double(lost) / Double(expected) * 100 : 0
    }
}

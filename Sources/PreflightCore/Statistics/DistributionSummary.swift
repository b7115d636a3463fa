/// Count, extremes, mean, standard deviation and percentiles of a finite set of values.
///
/// - Percentiles use the **nearest-rank** method: the p-th percentile of n sorted values is the
///   value at rank ⌈p·n/100⌉ (1-based, at least 1), so every percentile is one of the values.
///   Example: for 1…10, p50 = 5, p90 = 9, p95 = 10, p99 = 10.
/// - ``standardDeviation`` is the population standard deviation (divides by n).
/// - Non-finite values (NaN, ±infinity) are ignored. With no finite value, ``count`` is 0 and
///   every other field is 0 (never NaN, so the summary always encodes as JSON).
public struct DistributionSummary: Sendable, Hashable, Codable {
    /// Number of finite values summarised.
    public var count: Int
    /// Smallest value; 0 when empty.
    public var min: Double
    /// Largest value; 0 when empty.
    public var max: Double
    /// Arithmetic mean; 0 when empty.
    public var mean: Double
    /// Population standard deviation; 0 when empty.
    public var standardDeviation: Double
    /// Median (nearest rank); 0 when empty.
    public var p50: Double
    /// 90th percentile (nearest rank); 0 when empty.
    public var p90: Double
    /// 95th percentile (nearest rank); 0 when empty.
    public var p95: Double
    /// 99th percentile (nearest rank); 0 when empty.
    public var p99: Double

    /// Summarises `values` (in any unit; the summary keeps it). Sorts a copy: O(n log n).
    public init(_ values: [Double]) {
        var sorted = values.filter { $0.isFinite }
        sorted.sort()
        let running = RunningSummary(sorted)
        count = running.count
        min = running.min
        max = running.max
        mean = running.mean
        standardDeviation = running.standardDeviation
        p50 = Self.nearestRankPercentile(50, ofSorted: sorted)
        p90 = Self.nearestRankPercentile(90, ofSorted: sorted)
        p95 = Self.nearestRankPercentile(95, ofSorted: sorted)
        p99 = Self.nearestRankPercentile(99, ofSorted: sorted)
    }

    /// The nearest-rank `percentile` (0–100, clamped; NaN reads as 0) of ascending `sorted`
    /// values; 0 for an empty array.
    public static func nearestRankPercentile(_ percentile: Double, ofSorted sorted: [Double]) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let p = percentile.isNaN ? 0 : Swift.min(100, Swift.max(0, percentile))
        // p·n is exact for integral p and moderate n, so ⌈p·n/100⌉ has no rounding surprise.
        let rank = (p * Double(sorted.count) / 100).rounded(.up)
        let index = Swift.min(sorted.count - 1, Swift.max(0, Int(rank) - 1))
        return sorted[index]
    }
}

/// Streaming count, minimum, maximum, mean and variance of a series (Welford's algorithm),
/// for RTT, jitter and MOS summaries without storing every value.
///
/// Non-finite values (NaN, ±infinity) are ignored: they are not counted. An empty summary
/// reports zero for every statistic (never NaN), so check ``count`` before trusting them.
public struct RunningSummary: Sendable, Hashable, Codable {
    /// Number of finite values added.
    public private(set) var count: Int = 0
    /// Smallest value added, in the values' unit; 0 when empty.
    public private(set) var min: Double = 0
    /// Largest value added, in the values' unit; 0 when empty.
    public private(set) var max: Double = 0
    /// Arithmetic mean, in the values' unit; 0 when empty.
    public private(set) var mean: Double = 0
    /// Sum of squared deviations from the mean (Welford's M2).
    private var sumOfSquaredDeviations: Double = 0

    /// Creates an empty summary.
    public init() {}

    /// Creates a summary of `values` (non-finite values are skipped).
    public init(_ values: some Sequence<Double>) {
        for value in values { add(value) }
    }

    /// Adds one value; NaN and infinities are ignored.
    @inlinable
    public mutating func add(_ value: Double) {
        guard value.isFinite else { return }
        addFinite(value)
    }

    @usableFromInline
    mutating func addFinite(_ value: Double) {
        if count == 0 {
            min = value
            max = value
        } else {
            if value < min { min = value }
            if value > max { max = value }
        }
        count += 1
        let delta = value - mean
        mean += delta / Double(count)
        sumOfSquaredDeviations += delta * (value - mean)
    }

    /// Population variance (divides by n), in the values' unit squared; 0 when empty.
    public var variance: Double {
        count > 0 ? Swift.max(0, sumOfSquaredDeviations / Double(count)) : 0
    }

    /// Sample variance (divides by n − 1), in the values' unit squared; 0 with fewer than two values.
    public var sampleVariance: Double {
        count > 1 ? Swift.max(0, sumOfSquaredDeviations / Double(count - 1)) : 0
    }

    /// Population standard deviation, in the values' unit; 0 when empty.
    public var standardDeviation: Double { variance.squareRoot() }
}

/// Average, minimum and maximum of one metric over a test's samples: the report's
/// `{"average": …, "min": …, "max": …}` objects. The unit is the metric's (ms for RTT and jitter).
public struct MetricStats: Sendable, Hashable, Codable {
    /// Arithmetic mean of the samples.
    public var average: Double
    /// Smallest sample.
    public var min: Double
    /// Largest sample.
    public var max: Double

    /// Creates a summary; all zero by default (the empty report's values).
    public init(average: Double = 0, min: Double = 0, max: Double = 0) {
        self.average = average
        self.min = min
        self.max = max
    }

    /// Summarises `values`; zero for an empty sequence. Non-finite values are skipped.
    public init(_ values: some Sequence<Double>) {
        var count = 0
        var sum = 0.0
        var low = Double.infinity
        var high = -Double.infinity
        for value in values where value.isFinite {
            count += 1
            sum += value
            low = Swift.min(low, value)
            high = Swift.max(high, value)
        }
        if count == 0 {
            self.init()
        } else {
            self.init(average: sum / Double(count), min: low, max: high)
        }
    }
}

/// IP packet delay variation (RFC 5481 IPDV) between consecutively arriving packets, in ms.
///
/// Each value is (arrival difference) − (send-timestamp difference) of two consecutive packets,
/// as given by ``ReceiveStatistics/lastDelayVariationMilliseconds``. Values are positive when
/// a packet was delayed more than its predecessor, negative when less.
///
/// Memory is bounded: ``running`` keeps exact count/min/max/mean/variance of every value, and
/// a fixed-capacity reservoir (Vitter's algorithm R with a seeded, deterministic generator)
/// keeps a uniform sample for percentiles. Percentiles are exact while ``count`` ≤ ``capacity``
/// and estimates after. The reservoir's storage is reserved up front, so ``record(_:)`` does
/// not allocate.
public struct DelayVariation: Sendable, Hashable {
    /// Reservoir size used when none is given: 4096 values (32 KiB).
    public static let defaultCapacity = 4096

    /// Maximum number of values kept for percentiles (at least 1).
    public let capacity: Int
    /// Exact streaming summary of every finite value recorded, in ms.
    public private(set) var running = RunningSummary()
    /// The values kept for percentiles, in ms (not in arrival order once the reservoir is full).
    public private(set) var samples: [Double]
    private var random: SplitMix64

    /// Creates an empty collector.
    /// - Parameters:
    ///   - capacity: reservoir size (clamped to at least 1).
    ///   - seed: seed of the reservoir's replacement choices, for reproducible estimates.
    public init(capacity: Int = DelayVariation.defaultCapacity, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) {
        self.capacity = Swift.max(1, capacity)
        self.samples = []
        self.samples.reserveCapacity(self.capacity)
        self.random = SplitMix64(seed: seed)
    }

    /// Number of finite values recorded.
    public var count: Int { running.count }

    /// Records one IPDV value in ms. NaN and infinities are ignored.
    public mutating func record(_ milliseconds: Double) {
        guard milliseconds.isFinite else { return }
        running.add(milliseconds)
        if samples.count < capacity {
            samples.append(milliseconds)
            return
        }
        // Algorithm R: the n-th value replaces a random slot with probability capacity/n.
        let slot = Int(truncatingIfNeeded: random.next() % UInt64(running.count))
        if slot < capacity {
            samples[slot] = milliseconds
        }
    }

    /// Distribution (nearest-rank percentiles) of the kept values, in ms, with min/max/mean/
    /// standard deviation taken from ``running`` so they cover every value.
    public func summary() -> DistributionSummary {
        var result = DistributionSummary(samples)
        result.count = running.count
        result.min = running.min
        result.max = running.max
        result.mean = running.mean
        result.standardDeviation = running.standardDeviation
        return result
    }
}

import PreflightCore
import Testing

@Suite struct DistributionSummaryTests {
    @Test func oneToTen() {
        let summary = DistributionSummary([10, 3, 1, 7, 5, 2, 9, 4, 8, 6])
        #expect(summary.count == 10)
        #expect(summary.min == 1)
        #expect(summary.max == 10)
        #expect(summary.mean == 5.5)
        // Σ(x − 5.5)² = 82.5, /10 = 8.25.
        #expect((summary.standardDeviation - 8.25.squareRoot()).magnitude < 1e-12)
        // Nearest rank: ⌈0.5·10⌉ = 5, ⌈0.9·10⌉ = 9, ⌈0.95·10⌉ = 10, ⌈0.99·10⌉ = 10.
        #expect(summary.p50 == 5)
        #expect(summary.p90 == 9)
        #expect(summary.p95 == 10)
        #expect(summary.p99 == 10)
    }

    @Test func oneToTwenty() {
        let summary = DistributionSummary((1...20).reversed().map(Double.init))
        // ⌈10⌉ = 10, ⌈18⌉ = 18, ⌈19⌉ = 19, ⌈19.8⌉ = 20.
        #expect(summary.p50 == 10)
        #expect(summary.p90 == 18)
        #expect(summary.p95 == 19)
        #expect(summary.p99 == 20)
    }

    /// The nearest-rank example set 15, 20, 35, 40, 50.
    @Test(arguments: [
        (0.0, 15.0), (5.0, 15.0), (20.0, 15.0), (20.01, 20.0), (30.0, 20.0), (40.0, 20.0),
        (50.0, 35.0), (100.0, 50.0), (150.0, 50.0), (-3.0, 15.0), (Double.nan, 15.0),
    ])
    func nearestRank(percentile: Double, expected: Double) {
        #expect(DistributionSummary.nearestRankPercentile(percentile, ofSorted: [15, 20, 35, 40, 50]) == expected)
    }

    @Test func emptyAndNonFinite() {
        let empty = DistributionSummary([])
        #expect(empty.count == 0)
        #expect([empty.min, empty.max, empty.mean, empty.standardDeviation, empty.p50, empty.p99] == [0, 0, 0, 0, 0, 0])
        let onlyNaN = DistributionSummary([.nan, .infinity])
        #expect(onlyNaN.count == 0 && onlyNaN.mean == 0)
        let mixed = DistributionSummary([.nan, 4, -.infinity, 2])
        #expect(mixed.count == 2 && mixed.mean == 3 && mixed.p50 == 2 && mixed.max == 4)
        #expect(DistributionSummary.nearestRankPercentile(50, ofSorted: []) == 0)
        let single = DistributionSummary([7])
        #expect(single.p50 == 7 && single.p99 == 7 && single.standardDeviation == 0)
    }
}

@Suite struct RunningSummaryTests {
    @Test func welford() {
        let summary = RunningSummary([2, 4, 4, 4, 5, 5, 7, 9])
        #expect(summary.count == 8)
        #expect(summary.mean == 5)
        #expect(summary.min == 2 && summary.max == 9)
        // Σ(x − 5)² = 32: population 32/8 = 4, sample 32/7.
        #expect((summary.variance - 4).magnitude < 1e-12)
        #expect((summary.standardDeviation - 2).magnitude < 1e-12)
        #expect((summary.sampleVariance - 32.0 / 7.0).magnitude < 1e-12)
    }

    @Test func emptyAndNonFinite() {
        var summary = RunningSummary()
        #expect(summary.count == 0 && summary.mean == 0 && summary.variance == 0 && summary.sampleVariance == 0)
        summary.add(.nan)
        summary.add(.infinity)
        #expect(summary.count == 0)
        summary.add(-3)
        #expect(summary.count == 1 && summary.min == -3 && summary.max == -3 && summary.sampleVariance == 0)
    }
}

@Suite struct DelayVariationTests {
    @Test func exactBelowCapacity() {
        var variation = DelayVariation(capacity: 10)
        for value in [3.0, -1, 5, 1, 2] { variation.record(value) }
        variation.record(.nan)
        let summary = variation.summary()
        #expect(summary.count == 5)
        #expect(summary.p50 == 2)  // sorted −1, 1, 2, 3, 5: rank 3
        #expect(summary.min == -1 && summary.max == 5)
    }

    @Test func boundedAboveCapacity() {
        var variation = DelayVariation(capacity: 4)
        for value in 1...1000 { variation.record(Double(value)) }
        #expect(variation.samples.count == 4)
        #expect(variation.samples.allSatisfy { (1...1000).contains($0) })
        let summary = variation.summary()
        #expect(summary.count == 1000)
        #expect(summary.min == 1 && summary.max == 1000 && summary.mean == 500.5)
        #expect(DelayVariation(capacity: 0).capacity == 1)
    }

    @Test func fedFromReceiveStatistics() {
        var stats = ReceiveStatistics(minSequential: 1)
        var variation = DelayVariation()
        // Transit 0, +10 ms, +4 ms, +4 ms: IPDV +10, −6, 0 ms.
        let arrivals = [0.0, 0.03, 0.044, 0.064]
        for (index, arrival) in arrivals.enumerated() {
            _ = stats.record(
                sequenceNumber: UInt16(index), rtpTimestamp: UInt32(index * 160), arrival: arrival, clockRate: 8000)
            if let ipdv = stats.lastDelayVariationMilliseconds { variation.record(ipdv) }
        }
        let summary = variation.summary()
        #expect(summary.count == 3)
        #expect((summary.max - 10).magnitude < 1e-9)
        #expect((summary.min + 6).magnitude < 1e-9)
        #expect(summary.p50.magnitude < 1e-9)
    }
}

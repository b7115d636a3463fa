import PreflightCore
import Testing

@Suite struct IntervalLossTests {
    /// Late packets in flight at each second's end, alternating 5 and 1, nothing lost: A.3's
    /// clamping reads 8 % every other second; the credit keeps it at the first second's 10 %.
    @Test func reorderingAcrossIntervalEndsIsNotLoss() {
        var meter = IntervalLoss()
        var reported: [Int] = []
        for second in 1...10 {
            let late = second.isMultiple(of: 2) ? 1 : 5
            reported.append(meter.close(expected: 50 * second, lost: late).lost)
        }
        #expect(reported == [5, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    }

    @Test func realLossIsReportedInItsInterval() {
        var meter = IntervalLoss()
        let first = meter.close(expected: 50, lost: 2)
        #expect(first.lost == 2 && first.expected == 50 && first.percent == 4)
        let second = meter.close(expected: 100, lost: 2)
        #expect(second.lost == 0 && second.percent == 0)
        let third = meter.close(expected: 150, lost: 7)
        #expect(third.lost == 5 && third.percent == 10)
    }

    /// Two late packets come in (−2), then three are lost: the first two of those repay the
    /// over-report, the interval shows one.
    @Test func creditRepaysEarlierOverReport() {
        var meter = IntervalLoss()
        #expect(meter.close(expected: 50, lost: 2).lost == 2)
        #expect(meter.close(expected: 100, lost: 0).lost == 0)
        #expect(meter.close(expected: 150, lost: 3).lost == 1)
    }

    @Test func nothingExpectedIsZeroPercent() {
        var meter = IntervalLoss()
        let interval = meter.close(expected: 0, lost: 0)
        #expect(interval.expected == 0 && interval.percent == 0)
        // Loss can never exceed what was expected in the interval.
        #expect(meter.close(expected: 10, lost: 30).lost == 10)
    }
}

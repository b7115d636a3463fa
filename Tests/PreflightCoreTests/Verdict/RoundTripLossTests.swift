import PreflightCore
import Testing

/// ``RoundTripLoss``: each packet's round trip decided from the echoes' original sequence numbers.
@Suite struct RoundTripLossTests {
    static func record(_ sequences: some Sequence<Int>) -> RoundTripLoss {
        var loss = RoundTripLoss()
        for sequence in sequences { loss.recordEcho(of: UInt16(truncatingIfNeeded: sequence)) }
        return loss
    }

    @Test func everyEchoBackIsNoLossAndTheNewestAwaitTheMargin() {
        let loss = Self.record(0..<200)
        #expect(loss.decided == 200 - RoundTripLoss.settleMargin)
        #expect(loss.lost == 0)
        #expect(loss.lossRuns == 0)
        #expect(loss.meanLossRun == 1)
    }

    @Test func gapsAreLossesAndRunsAreCounted() {
        // Missing: 10 (a run of 1), 20–22 (a run of 3), 50 (a run of 1).
        let missing: Set<Int> = [10, 20, 21, 22, 50]
        let loss = Self.record((0..<300).filter { !missing.contains($0) })
        #expect(loss.lost == 5)
        #expect(loss.lossRuns == 3)
        #expect(abs(loss.meanLossRun - 5.0 / 3) < 1e-9)
    }

    /// (The first echo starts the count: packets before it are not counted.)
    @Test func reorderingWithinTheMarginIsNotLossAndDuplicatesDoNotCount() {
        var order = Array(0..<300)
        for start in stride(from: 10, to: 290, by: 10) { order.swapAt(start, start + 7) }  // 7 packets late
        let loss = Self.record(order + [5, 5, 100])
        #expect(loss.lost == 0)
        #expect(loss.decided == 300 - RoundTripLoss.settleMargin)
    }

    @Test func anEchoLaterThanTheMarginStaysCountedLost() {
        let loss = Self.record(Array(0..<40) + Array(41..<200) + [40])
        #expect(loss.lost == 1)
    }

    @Test func sequenceNumbersWrap() {
        let loss = Self.record((65_400..<65_700).filter { $0 != 65_536 })
        #expect(loss.lost == 1)
        #expect(loss.decided == 300 - RoundTripLoss.settleMargin)
    }

    @Test func aJumpPastTheWindowCountsEverythingSkippedAsLost() {
        let loss = Self.record(Array(0..<10) + Array(3_000..<3_100))
        #expect(loss.lost == 2_990)
        #expect(loss.lossRuns == 1)
        #expect(loss.decided == 3_100 - RoundTripLoss.settleMargin)
    }
}

import PreflightCore
import Testing

/// ``ProbeFates``: loss probes decided half a second behind the newest answer, by when they were
/// sent, never by their own fate.
@Suite struct ProbeFatesTests {
    /// `count` probes 20 ms apart; their ids.
    static func send(_ count: Int, into fates: inout ProbeFates, from start: Double = 0) -> [STUNTransactionID] {
        (0..<count).map { index in
            let id = STUNTransactionID.random()
            fates.recordSent(id, at: start + 0.02 * Double(index))
            return id
        }
    }

    @Test func answeredProbesAreDecidedOnlyOnceHalfASecondOfNewerProbesIsAnswered() {
        var fates = ProbeFates()
        let ids = Self.send(50, into: &fates)
        // Answered in order: each answer decides the probes sent 0.5 s (25 probes) or more before it.
        for (index, id) in ids.enumerated() {
            let counted = fates.recordAnswer(id)
            #expect(counted)
            #expect(fates.decided == max(0, index - 24))
        }
        #expect(fates.sent == 50 && fates.decided == 25 && fates.lost == 0 && fates.lossRuns == 0)
        #expect(fates.meanLossRun == 1)
    }

    @Test func anUnansweredProbeIsLostOnceANewerOneHalfASecondLaterIsAnswered() {
        var fates = ProbeFates()
        let ids = Self.send(60, into: &fates)
        let lost: Set<Int> = [3, 10, 11, 12, 30]
        for (index, id) in ids.enumerated() where !lost.contains(index) {
            fates.recordAnswer(id)
        }
        // Decided through probe 34 (sent 0.68 s, 0.5 s before the last answer's 1.18 s).
        #expect(fates.decided == 35)
        #expect(fates.lost == 5)
        #expect(fates.lossRuns == 3)
        #expect(abs(fates.meanLossRun - 5.0 / 3) < 1e-9)
    }

    /// Reordered by less than the margin: the late answer still counts; by more, it does not.
    @Test func anAnswerLaterThanTheMarginIsNotCounted() {
        var fates = ProbeFates()
        let ids = Self.send(50, into: &fates)
        // Probe 0's answer comes after probe 20's (0.4 s newer): still answered.
        for id in ids[1...20] { fates.recordAnswer(id) }
        #expect(fates.decided == 0)
        let late = fates.recordAnswer(ids[0])
        #expect(late)
        // Probe 26's answer (0.52 s after probe 0, 0.5 s after probe 1) decides probes 0 and 1;
        // probe 21's answer, later still, comes after its own decision.
        for id in ids[22...26] { fates.recordAnswer(id) }
        #expect(fates.decided == 2 && fates.lost == 0)
        for id in ids[27...49] { fates.recordAnswer(id) }
        #expect(fates.decided == 25 && fates.lost == 1)
        let tooLate = fates.recordAnswer(ids[21])
        #expect(!tooLate)
        #expect(fates.lost == 1)
    }

    @Test func unknownAndRepeatedAnswersAreNotCounted() {
        var fates = ProbeFates()
        let ids = Self.send(3, into: &fates)
        let unknown = fates.recordAnswer(STUNTransactionID.random())
        #expect(!unknown)
        let first = fates.recordAnswer(ids[1])
        let again = fates.recordAnswer(ids[1])
        #expect(first && !again)
        #expect(!fates.isAwaited(ids[1]) && fates.isAwaited(ids[0]))
    }

    /// Without newer answers nothing is decided: silence (an outage, or a client stalled with
    /// answers unread) counts nothing lost; leaving the path forgets what waits.
    @Test func silenceDecidesNothingAndAbandonedProbesAreForgotten() {
        var fates = ProbeFates()
        let ids = Self.send(40, into: &fates)
        #expect(fates.decided == 0)
        fates.abandonPending()
        let forgotten = fates.recordAnswer(ids[39])
        #expect(!forgotten)
        #expect(fates.decided == 0 && fates.sent == 40)
        let more = Self.send(30, into: &fates, from: 10)
        for id in more { fates.recordAnswer(id) }
        #expect(fates.decided == 5 && fates.lost == 0)
    }
}

@testable import PreflightCore
import Testing

/// ``VerdictJudge`` on simulated tests: per-packet RTTs and round-trip fates from a seeded
/// generator, samples as the meter takes them (per-second mean RTT and loss, MOS of those), and
/// the warnings the real ``WarningsEngine`` raises on them.
@Suite struct VerdictJudgeTests {
    struct Path {
        var rtt: Double
        var rttSpread: Double = 1
        var jitter: Double = 0.2
        var loss: Double = 0
        var burst: Double = 1
    }

    /// `seconds` of a 50 packets/s echo test over `path`: the evidence after each second; with
    /// `probes`, the test's loss probes too (50 a second over its first 2 s, lost by the same
    /// process, answered after the path's RTT, decided by ``ProbeFates``).
    static func simulate(_ path: Path, seconds: Int, seed: UInt64, probes: Bool = false) -> [VerdictEvidence] {
        var evidence = simulate(path, seconds: seconds, seed: seed)
        guard probes else { return evidence }
        var random = SplitMix64(seed: seed &+ 1000)
        var inBurst = false
        let leave = 1 / path.burst
        let enter = path.loss * leave / max(1e-9, 1 - path.loss)
        let probes: [(id: STUNTransactionID, sentAt: Double, answeredAt: Double?)] = (0..<100).map { index in
            inBurst = inBurst ? Double.random(in: 0..<1, using: &random) >= leave : Double.random(in: 0..<1, using: &random) < enter
            let sentAt = 0.01 + 0.02 * Double(index)
            return (STUNTransactionID.random(), sentAt, inBurst ? nil : sentAt + path.rtt / 1000)
        }
        for second in evidence.indices {
            let now = Double(second + 1)
            var fates = ProbeFates()
            for probe in probes where probe.sentAt <= now { fates.recordSent(probe.id, at: probe.sentAt) }
            let answers = probes.compactMap { probe in probe.answeredAt.flatMap { $0 <= now ? (probe.id, $0) : nil } }
            for (id, _) in answers.sorted(by: { $0.1 < $1.1 }) { fates.recordAnswer(id) }
            evidence[second].probes = fates
        }
        return evidence
    }

    static func simulate(_ path: Path, seconds: Int, seed: UInt64) -> [VerdictEvidence] {
        var random = SplitMix64(seed: seed)
        var roundTrips = RunningSummary()
        var loss = RoundTripLoss()
        var engine = WarningsEngine()
        var samples: [StatsSample] = []
        var evidence: [VerdictEvidence] = []
        var inBurst = false
        // A two-state loss process with the given mean loss and mean burst length.
        let leave = 1 / path.burst
        let enter = path.loss * leave / max(1e-9, 1 - path.loss)
        var sequence = 0
        for second in 0..<seconds {
            var rtts = RunningSummary()
            var lostThisSecond = 0
            for _ in 0..<50 {
                inBurst = inBurst ? Double.random(in: 0..<1, using: &random) >= leave : Double.random(in: 0..<1, using: &random) < enter
                if inBurst {
                    lostThisSecond += 1
                } else {
                    let rtt = max(0, path.rtt + Double.random(in: -1...1, using: &random) * path.rttSpread * 1.732)
                    rtts.add(rtt)
                    roundTrips.add(rtt)
                    loss.recordEcho(of: UInt16(truncatingIfNeeded: sequence))
                }
                sequence += 1
            }
            let fraction = 100 * Double(lostThisSecond) / 50
            let rtt = rtts.count > 0 ? rtts.mean : path.rtt
            let sample = StatsSample(
                timestamp: Double(second), rtt: rtt, jitter: path.jitter,
                mos: MeanOpinionScore.mos(rtt: rtt, jitter: path.jitter, packetLossPercent: fraction),
                packetsLostFraction: fraction, audioInputLevel: 8000 + 3000 * (second % 2), audioOutputLevel: 9000 - 3000 * (second % 2))
            samples.append(sample)
            _ = engine.ingest(sample)
            evidence.append(VerdictEvidence(
                samples: samples, roundTrips: roundTrips, roundTripLoss: loss,
                raised: Set(engine.raisedRecords.compactMap { QualityWarning(rawValue: $0.name) })))
        }
        return evidence
    }

    /// The first second whose evidence settles the verdict, and that judgement.
    static func firstSettled(_ path: Path, seconds: Int = 30, seed: UInt64, probes: Bool = false) -> (Int, VerdictJudgement)? {
        let judge = VerdictJudge(maximumSamples: 30)
        for (index, evidence) in simulate(path, seconds: seconds, seed: seed, probes: probes).enumerated() {
            let judgement = judge.judge(evidence)
            if judgement.settled { return (index + 1, judgement) }
        }
        return nil
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func aCleanPathSettlesExcellentWithinThreeSeconds(seed: UInt64) throws {
        let (second, judgement) = try #require(Self.firstSettled(Path(rtt: 0.5, rttSpread: 0.1), seed: seed))
        #expect(second <= 3)
        #expect(judgement.band == .excellent)
        #expect(judgement.raised.isEmpty)
        #expect(Set(judgement.ruledOut) == Set(QualityWarning.allCases))
        #expect(judgement.openQuestions.isEmpty)
        let record = judgement.settlement(afterSeconds: Double(second), maximumSeconds: 30, roundTripLoss: RoundTripLoss())
        #expect(record.callQuality == .excellent && record.unsettled == nil)
    }

    /// The loss probes' 75 round trips decided by the second sample, beside the audio's 75 or
    /// so, rule out the loss warning there: a clean path settles at 2 s, the least samples.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func withLossProbesACleanPathSettlesExcellentAtItsSecondSample(seed: UInt64) throws {
        let evidence = Self.simulate(Path(rtt: 0.5, rttSpread: 0.1), seconds: 3, seed: seed, probes: true)
        #expect(evidence[1].probes.decided >= 70 && evidence[1].probes.lost == 0)
        let (second, judgement) = try #require(Self.firstSettled(Path(rtt: 0.5, rttSpread: 0.1), seed: seed, probes: true))
        #expect(second == 2)
        #expect(judgement.band == .excellent && judgement.raised.isEmpty)
        // Without the probes the same path needs its third sample.
        let (alone, _) = try #require(Self.firstSettled(Path(rtt: 0.5, rttSpread: 0.1), seed: seed))
        #expect(alone == 3)
    }

    /// The probes carry the path's loss: with them, heavy loss still keeps the verdict open until
    /// the loss warning's rule could have fired.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func lossProbesDoNotHideLoss(seed: UInt64) {
        let judge = VerdictJudge(maximumSamples: 30)
        let evidence = Self.simulate(Path(rtt: 40, loss: 0.05), seconds: 8, seed: seed, probes: true)
        #expect(evidence[2].probes.lost > 0)
        for early in evidence.prefix(WarningsEngine.packetLossWindow - 1) {
            #expect(!judge.judge(early).settled)
        }
    }

    @Test func oneSampleIsNeverEnough() {
        let evidence = Self.simulate(Path(rtt: 0.5), seconds: 1, seed: 1)
        let judgement = VerdictJudge(maximumSamples: 30).judge(evidence[0])
        #expect(!judgement.settled)
        #expect(judgement.openQuestions.contains { $0.subject == .evidence && $0.words.hasPrefix("too little evidence: 1 samples") })
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func heavyLossCannotSettleBeforeTheLossWarningCouldBeRaised(seed: UInt64) {
        // 5 % of round trips lost: the rules raise high-packets-lost-fraction at the 7th sample at
        // the earliest, and it cannot be ruled out before; by the 30th it is raised.
        let judge = VerdictJudge(maximumSamples: 30)
        let evidence = Self.simulate(Path(rtt: 40, loss: 0.05), seconds: 30, seed: seed)
        for early in evidence.prefix(WarningsEngine.packetLossWindow - 1) {
            let judgement = judge.judge(early)
            #expect(!judgement.settled)
            #expect(judgement.undecided.contains(.highPacketsLostFraction))
        }
        #expect(judge.judge(evidence[29]).raised.contains(.highPacketsLostFraction))
    }

    @Test func aMeanOnABandEdgeDoesNotSettle() throws {
        // Round-trip loss giving a mean MOS of about 4.2, the excellent/great edge: no band.
        var edgeLoss = 0.0
        while MeanOpinionScore.mos(rtt: 20, jitter: 0.2, packetLossPercent: edgeLoss * 100) > 4.2 { edgeLoss += 0.0005 }
        let judge = VerdictJudge(maximumSamples: 30)
        let evidence = Self.simulate(Path(rtt: 20, loss: edgeLoss), seconds: 12, seed: 7)
        #expect(evidence.allSatisfy { !judge.judge($0).settled })
        let last = judge.judge(evidence[evidence.count - 1])
        #expect(last.meanMOSLower < 4.2 && last.meanMOSUpper > 4.2)
        // What it sits between, in plain words, and in the record the maximum leaves.
        let band = try #require(last.openQuestions.first { if case .band = $0.subject { true } else { false } })
        guard case .band(let spanned) = band.subject else { return }
        #expect(Array(spanned.prefix(2)) == [.excellent, .great])
        #expect(band.words.hasPrefix("mean MOS 4.") && band.words.contains(": between excellent and \(spanned[spanned.count - 1])"))
        #expect(band.words.contains("4.2") && band.words.contains("inside its 95 % bounds"))
        let record = last.settlement(afterSeconds: 12, maximumSeconds: 12, roundTripLoss: evidence[11].roundTripLoss)
        #expect(!record.settled && record.callQuality == nil)
        #expect(record.unsettled?.bands == spanned)
        #expect(record.unsettled?.summary == band.words)
    }

    /// At the maximum no rule has a window left, so every warning counts as ruled out: the record
    /// of a test the maximum ended names the warning that held it open in the judgement before,
    /// and takes the band's words from its own (newer) judgement when both ask about it.
    @Test func aTestTheMaximumEndedNamesTheWarningThatHeldItOpen() {
        let evidence = Self.simulate(Path(rtt: 397, rttSpread: 20), seconds: 6, seed: 5)
        let open = VerdictJudge(maximumSamples: 30).judge(evidence[5])
        let words = open.openQuestions.first { $0.subject == .warning(.highRTT) }?.words ?? ""
        #expect(words.hasPrefix("high-rtt: mean RTT 39") && words.hasSuffix(" ms against its 400 ms threshold"))
        // The same evidence at a maximum of 6 samples: no window left, the warning ruled out.
        let atMaximum = VerdictJudge(maximumSamples: 6).judge(evidence[5])
        #expect(atMaximum.ruledOut.contains(.highRTT) && !atMaximum.settled)
        var before = open
        before.openQuestions.append(.init(subject: .band([.good, .fair]), words: "an older band question"))
        var last = atMaximum
        last.openQuestions.append(.init(subject: .band([.fair, .degraded]), words: "the newer band question"))
        let record = last.settlement(afterSeconds: 6, maximumSeconds: 6, roundTripLoss: evidence[5].roundTripLoss, before: before)
        #expect(!record.settled)
        #expect(record.unsettled?.warnings.contains(.highRTT) == true)
        #expect(record.unsettled?.bands == [.fair, .degraded])
        #expect(record.unsettled?.summary.hasPrefix("the newer band question; high-rtt: mean RTT 39") == true)
        // Without the judgement before, the maximum's own says nothing of the warning.
        let alone = atMaximum.settlement(afterSeconds: 6, maximumSeconds: 6, roundTripLoss: evidence[5].roundTripLoss)
        #expect(alone.unsettled?.warnings.contains(.highRTT) != true)
    }

    /// The rtt300-j40 case of the accuracy benchmark: reordering at the start reads as a few
    /// seconds of loss in the samples (credited back later), while every round trip came back.
    /// The evidence gives one band, the samples' mean another: not settled until they agree.
    @Test func theReportsOwnBandMustAgreeWithTheEvidence() {
        let judge = VerdictJudge(maximumSamples: 30)
        var evidence = Self.simulate(Path(rtt: 300, rttSpread: 20, jitter: 45), seconds: 6, seed: 2)
        let artefact = [8.0, 6.0, 5.0, 0, 0, 0]
        for index in evidence.indices {
            for position in evidence[index].samples.indices {
                var sample = evidence[index].samples[position]
                sample.packetsLostFraction = artefact[position]
                sample.mos = MeanOpinionScore.mos(rtt: sample.rtt, jitter: sample.jitter, packetLossPercent: sample.packetsLostFraction)
                evidence[index].samples[position] = sample
            }
        }
        let early = judge.judge(evidence[3])
        let samplesBand = CallQuality(averageMOS: evidence[3].samples.map(\.mos).reduce(0, +) / 4)
        #expect(samplesBand == .degraded)
        #expect(CallQuality(averageMOS: early.meanMOSLower) == .fair && CallQuality(averageMOS: early.meanMOSUpper) == .fair)
        #expect(early.band == nil && !early.settled)
    }

    @Test func burstyLossIsLessCertainThanRandomLoss() {
        let judge = VerdictJudge(maximumSamples: 30)
        let random = judge.judge(Self.simulate(Path(rtt: 40, loss: 0.02), seconds: 10, seed: 3)[9])
        let bursty = judge.judge(Self.simulate(Path(rtt: 40, loss: 0.02, burst: 4), seconds: 10, seed: 3)[9])
        #expect(bursty.meanMOSUpper - bursty.meanMOSLower > random.meanMOSUpper - random.meanMOSLower)
    }

    @Test func anRTTNearTheWarningThresholdIsNotRuledOut() {
        let judge = VerdictJudge(maximumSamples: 30)
        let evidence = Self.simulate(Path(rtt: 397, rttSpread: 20), seconds: 6, seed: 5)
        #expect(judge.judge(evidence[5]).undecided.contains(.highRTT))
        // Farther (a second's mean of 50 packets varies by 20/√50 ≈ 3 ms), the same spread rules it out.
        let far = Self.simulate(Path(rtt: 370, rttSpread: 20), seconds: 6, seed: 5)
        #expect(judge.judge(far[5]).ruledOut.contains(.highRTT))
    }

    @Test func warningsThatNeedMoreSamplesThanTheMaximumAreRuledOut() {
        let judge = VerdictJudge(maximumSamples: 5)
        let judgement = judge.judge(Self.simulate(Path(rtt: 40, loss: 0.06), seconds: 3, seed: 1)[2])
        #expect(judgement.ruledOut.contains(.highPacketsLostFraction))
        #expect(judgement.ruledOut.contains(.constantAudioInputLevel))
    }

    @Test func theLossPosteriorCoversTheTruthAndShrinksWithEvidence() {
        let few = LossPosterior(lost: 2, trials: 100, meanLossRun: 1)
        let many = LossPosterior(lost: 20, trials: 1000, meanLossRun: 1)
        #expect(few.quantile(0.05) < 0.02 && few.quantile(0.95) > 0.02)
        #expect(many.quantile(0.95) - many.quantile(0.05) < few.quantile(0.95) - few.quantile(0.05))
        // No loss in 300: Jeffreys' one-sided 95 % bound is about 3.84 / (2 · 300).
        let none = LossPosterior(lost: 0, trials: 300, meanLossRun: 1).quantile(0.95)
        #expect(none > 0.004 && none < 0.009)
        #expect(abs(few.weights.reduce(0, +) - 1) < 1e-9)
    }
}

import Foundation

/// Decides whether an adaptive preflight test may end: its verdict (the callQuality band of the
/// mean MOS, and the quality warnings the rules raise) must be settled at 95 % confidence from
/// what it measured so far. Sans-IO: evidence in, judgement out. The method and its limits are
/// in docs/measurement.md ("Adaptive duration").
///
/// - **The band**: one-sided 95 % bounds of the expected mean MOS from per-packet data: the
///   mean RTT of every echo (standard error from the per-packet spread, or from the per-second
///   means when those vary more), the mean jitter of the samples, and the round-trip loss
///   probability's posterior from every packet's fate and every loss probe's (the test's first
///   seconds: ``VerdictEvidence/probes``), widened for bursty loss
///   (``LossPosterior``). The MOS formula is monotone in each input, so the bounds are the MOS
///   of the inputs' bounds, moved by the samples' own difference between the mean of MOS and
///   the MOS of the means. The band is decided when both bounds fall in the same band, and the
///   samples' own mean MOS (what the report says) is in that band too.
/// - **The warnings**: one raised by the rules is decided; one not raised is ruled out when the
///   chance that the rules would raise it within the maximum, predicted from the same
///   uncertainty, is below 5 %.
public struct VerdictJudge: Sendable {
    /// The samples the test may take at most (its maximum in seconds).
    public let maximumSamples: Int
    /// The one-sided confidence of every bound and every ruling-out: 0.95.
    public var confidence = 0.95
    /// Packets a second of the test's stream (20 ms frames): 50.
    public var packetsPerSecond = 50.0
    /// The least samples for any verdict: 2.
    public var minimumSamples = 2
    /// The least round trips decided (the media's and the loss probes') for any verdict: 100.
    public var minimumRoundTrips = 100

    /// A judge for a test of at most `maximumSamples` samples.
    public init(maximumSamples: Int) {
        self.maximumSamples = max(1, maximumSamples)
    }

    /// Judges the evidence.
    public func judge(_ evidence: VerdictEvidence) -> VerdictJudgement {
        let samples = evidence.samples
        let count = Double(max(1, samples.count))
        let z = Self.standardNormalQuantile(confidence)
        let rtts = RunningSummary(samples.map(\.rtt))
        let jitters = RunningSummary(samples.map(\.jitter))
        let scores = RunningSummary(samples.map(\.mos))
        let losses = RunningSummary(samples.map(\.packetsLostFraction))

        // RTT: every echo's, its standard error the larger of the per-packet one and the per-second one.
        let packets = evidence.roundTrips
        let rttMean = packets.count > 0 ? packets.mean : rtts.mean
        let perPacket = packets.count > 1 ? (packets.sampleVariance / Double(packets.count)).squareRoot() : 0
        let rttError = max(perPacket, (rtts.sampleVariance / count).squareRoot())
        // Jitter: the samples' (a smoothed estimate already); at least 10 % of it as the error.
        let jitterError = max((jitters.sampleVariance / count).squareRoot(), (0.1 * jitters.mean + 0.1) / count.squareRoot())
        // Loss: the posterior of every decided round trip, the media's and the probes'.
        let loss = evidence.fates
        let posterior = LossPosterior(lost: loss.lost, trials: loss.decided, meanLossRun: loss.meanLossRun)
        let lossHigh = 100 * posterior.quantile(confidence)
        let lossLow = 100 * posterior.quantile(1 - confidence)
        // The mean of per-second MOS is not the MOS of the means: keep the samples' difference.
        let offset = samples.isEmpty ? 0 : scores.mean - MeanOpinionScore.mos(rtt: rtts.mean, jitter: jitters.mean, packetLossPercent: losses.mean)
        let gap = offset.isFinite ? offset : 0
        let lower = MeanOpinionScore.mos(rtt: rttMean + z * rttError, jitter: jitters.mean + z * jitterError, packetLossPercent: lossHigh) + gap
        let upper = MeanOpinionScore.mos(
            rtt: max(0, rttMean - z * rttError), jitter: max(0, jitters.mean - z * jitterError), packetLossPercent: lossLow) + gap
        let lowBand = CallQuality(averageMOS: lower)
        // What the report would say now: the samples' own mean. Early seconds can read lower than
        // the path (packets reordered at the start count as lost until they arrive), so the
        // report's band must also be the band the evidence gives before the test may end.
        let reported = samples.isEmpty ? nil : CallQuality(averageMOS: scores.mean)
        let bounded = lowBand != nil && lowBand == CallQuality(averageMOS: upper) ? lowBand : nil
        let band = bounded != nil && bounded == reported ? bounded : nil

        let risks = WarningRisks(
            judge: self, samples: samples, rttMean: rttMean, rttError: rttError,
            rttSpread: max(rtts.standardDeviation, packets.standardDeviation / packetsPerSecond.squareRoot(), 1),
            jitterMean: jitters.mean, jitterError: jitterError, jitterSpread: max(jitters.standardDeviation, 0.1 * jitters.mean + 0.5),
            mosLower: lower, mosUpper: upper, scores: scores, losses: losses, posterior: posterior, z: z)
        var raised: [QualityWarning] = []
        var ruledOut: [QualityWarning] = []
        var undecided: [QualityWarning] = []
        for warning in QualityWarning.allCases {
            if evidence.raised.contains(warning) {
                raised.append(warning)
            } else if risks.risk(of: warning) < 1 - confidence {
                ruledOut.append(warning)
            } else {
                undecided.append(warning)
            }
        }
        let enough = samples.count >= minimumSamples && loss.decided >= minimumRoundTrips
        // At the maximum every rule is ruled out trivially (no window is left): that is the end
        // of a test that did not settle, not a settled verdict.
        let settled = enough && band != nil && undecided.isEmpty && samples.count < maximumSamples
        let bounds = String(format: "mean MOS %.2f–%.2f", lower, upper)
        var reasons: [String] = []
        if let band {
            reasons.append("callQuality \(band) (\(bounds), one-sided 95 % bounds)")
        } else if let bounded {
            reasons.append(String(
                format: "callQuality \(bounded) by the evidence (\(bounds)), but the samples' mean MOS %.2f is \(reported.map { "\($0)" } ?? "unknown") so far",
                scores.mean))
        } else {
            reasons.append("callQuality between \(CallQuality(averageMOS: upper).map { "\($0)" } ?? "?") and \(lowBand.map { "\($0)" } ?? "?") (\(bounds))")
        }
        reasons.append("warnings raised: \(raised.isEmpty ? "none" : raised.map(\.rawValue).joined(separator: ", "))")
        if !undecided.isEmpty { reasons.append("not yet ruled out: \(undecided.map(\.rawValue).joined(separator: ", "))") }
        if !enough { reasons.append("too little evidence yet (\(samples.count) samples, \(loss.decided) round trips)") }
        // What keeps the verdict open, in plain words (the report's `unsettled` when the maximum comes first).
        var questions: [VerdictJudgement.OpenQuestion] = []
        if band == nil {
            questions.append(Self.bandQuestion(lower: lower, upper: upper, bounded: bounded, reported: reported, meanMOS: scores.mean))
        }
        for warning in undecided {
            let words: String
            switch warning {
            case .highRTT:
                words = String(
                    format: "high-rtt: mean RTT %.0f ± %.0f ms against its %.0f ms threshold", rttMean, z * rttError, WarningsEngine.rttThreshold)
            case .highJitter:
                words = String(
                    format: "high-jitter: mean jitter %.1f ± %.1f ms against its %.0f ms threshold", jitters.mean, z * jitterError,
                    WarningsEngine.jitterThreshold)
            case .lowMOS:
                words = String(
                    format: "low-mos: mean MOS %.2f ± %.2f against its %.1f threshold", (lower + upper) / 2, max(0, upper - lower) / 2,
                    WarningsEngine.mosThreshold)
            case .highPacketsLostFraction:
                words = String(
                    format: "high-packets-lost-fraction: round-trip loss %.1f %% (95 %%: %.1f–%.1f %%) against its %.0f %% threshold over %d s",
                    100 * posterior.expectation { $0 }, lossLow, lossHigh, WarningsEngine.packetLossRaiseThreshold,
                    WarningsEngine.packetLossWindow)
            case .constantAudioInputLevel, .constantAudioOutputLevel:
                words = String(
                    format: "\(warning.rawValue): the level has not yet varied by more than %.0f %% over %d s",
                    WarningsEngine.audioLevelClearThreshold, WarningsEngine.audioLevelWindow)
            }
            questions.append(.init(subject: .warning(warning), words: words))
        }
        if !enough {
            questions.append(.init(
                subject: .evidence,
                words: "too little evidence: \(samples.count) samples and \(loss.decided) round trips, at least \(minimumSamples) and \(minimumRoundTrips) needed"))
        }
        return VerdictJudgement(
            settled: settled, band: band, meanMOSLower: lower, meanMOSUpper: upper, raised: raised, ruledOut: ruledOut,
            undecided: undecided, reason: reasons.joined(separator: "; "), openQuestions: questions)
    }

    /// The callQuality edges (4.2, 4.1, 3.7, 3.1), best first.
    static let bandEdges = [4.2, 4.1, 3.7, 3.1]

    /// Why the band is open: the bounds span two or more bands ("mean MOS 4.21 ± 0.03: between
    /// excellent and great (the 4.2 edge is inside its 95 % bounds)"), or they agree on one band
    /// and the samples' own mean (what the report says) is in another.
    static func bandQuestion(
        lower: Double, upper: Double, bounded: CallQuality?, reported: CallQuality?, meanMOS: Double
    ) -> VerdictJudgement.OpenQuestion {
        let top = CallQuality(averageMOS: upper)?.rawValue ?? 0
        let bottom = CallQuality(averageMOS: lower)?.rawValue ?? CallQuality.degraded.rawValue
        var spanned = CallQuality.allCases.filter { (min(top, bottom)...max(top, bottom)).contains($0.rawValue) }
        if let reported, !spanned.contains(reported) { spanned = (spanned + [reported]).sorted { $0.rawValue < $1.rawValue } }
        let center = meanMOS.isFinite ? meanMOS : (lower + upper) / 2
        let names = spanned.count > 1 ? "between \(spanned[0]) and \(spanned[spanned.count - 1])" : spanned.map { "\($0)" }.joined()
        let words: String
        if let bounded, let reported, bounded != reported {
            words = String(
                format: "mean MOS %.2f: \(reported) by the samples so far, \(bounded) by the evidence's 95 %% bounds %.2f–%.2f", center, lower, upper)
        } else {
            let edges = bandEdges.filter { lower <= $0 && $0 <= upper }.map { String(format: "%.1f", $0) }
            let inside = edges.isEmpty ? "" : " (the \(edges.joined(separator: " and ")) edge\(edges.count > 1 ? "s are" : " is") inside its 95 % bounds)"
            words = String(format: "mean MOS %.2f ± %.2f: \(names)", center, max(0, upper - lower) / 2) + inside
        }
        return .init(subject: .band(spanned), words: words)
    }

    /// P(Z > x) for a standard normal Z.
    static func upperTail(_ x: Double) -> Double { 0.5 * erfc(x / 2.0.squareRoot()) }

    /// The standard normal quantile of `probability` (bisection of ``upperTail(_:)``; 1.645 for 0.95).
    static func standardNormalQuantile(_ probability: Double) -> Double {
        var low = -10.0
        var high = 10.0
        for _ in 0..<80 {
            let middle = (low + high) / 2
            if 1 - upperTail(middle) < probability { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }
}

import Foundation

/// The chance that the warnings' rules (``WarningsEngine``) would raise each warning within a
/// test's maximum, predicted from what the test measured so far: the judge rules a warning out
/// when it is below 5 %.
///
/// - high-rtt, high-jitter, low-mos (3 of the last 5 samples beyond the threshold): each
///   second's value is normal around the mean with the per-second spread, the mean itself
///   uncertain by its standard error; a window fires with probability at most C(5,3)·q³ for a
///   per-second exceedance q, and as many windows are still to come as samples.
/// - high-packets-lost-fraction (the mean of 7 samples above 3 %): a 7-second window of round
///   trips lost with probability p has a mean of spread √(p(1−p)·inflation/(7·rate)); the
///   risk is averaged over the loss posterior, with one independent window per 3.5 s still to
///   come (overlapping windows counted twice over, to be safe).
/// - constant-audio-input/output-level (10 samples of levels within 1 %): impossible in a test
///   shorter than 10 s; otherwise ruled out once the levels seen (two samples are enough)
///   spread more than the clearing threshold (3 %), a rule rather than a probability: the levels
///   are the audio's, not the network's.
struct WarningRisks {
    let judge: VerdictJudge
    let samples: [StatsSample]
    let rttMean: Double
    let rttError: Double
    let rttSpread: Double
    let jitterMean: Double
    let jitterError: Double
    let jitterSpread: Double
    let mosLower: Double
    let mosUpper: Double
    let scores: RunningSummary
    let losses: RunningSummary
    let posterior: LossPosterior
    let z: Double

    /// Samples still to come before the maximum: the windows a rule could still fire in (those
    /// that closed did not fire, or the warning would be raised).
    var remaining: Double { Double(max(0, judge.maximumSamples - samples.count)) }

    func risk(of warning: QualityWarning) -> Double {
        switch warning {
        case .highRTT:
            return windowed(center: rttMean, error: rttError, spread: rttSpread, threshold: WarningsEngine.rttThreshold, above: true)
        case .highJitter:
            return windowed(
                center: jitterMean, error: jitterError, spread: jitterSpread, threshold: WarningsEngine.jitterThreshold, above: true)
        case .lowMOS:
            let center = (mosLower + mosUpper) / 2
            let error = max(0, mosUpper - mosLower) / (2 * z)
            // A second's MOS varies with that second's loss: its binomial spread through the formula's slope.
            let lossMean = posterior.expectation { $0 }
            let perSecond = 100 * (lossMean * (1 - lossMean) * posterior.inflation / judge.packetsPerSecond).squareRoot()
            let slope = abs(
                MeanOpinionScore.mos(rtt: rttMean, jitter: jitterMean, packetLossPercent: max(0, losses.mean - 0.2))
                    - MeanOpinionScore.mos(rtt: rttMean, jitter: jitterMean, packetLossPercent: losses.mean + 0.2)) / 0.4
            let spread = max(scores.standardDeviation, slope.isFinite ? slope * perSecond : 0, 0.02)
            return windowed(center: center, error: error, spread: spread, threshold: WarningsEngine.mosThreshold, above: false)
        case .highPacketsLostFraction:
            guard judge.maximumSamples >= WarningsEngine.packetLossWindow else { return 0 }
            let threshold = WarningsEngine.packetLossRaiseThreshold / 100
            let packets = Double(WarningsEngine.packetLossWindow) * judge.packetsPerSecond
            guard remaining > 0 else { return 0 }
            let independent = max(1, remaining / 3.5)
            return posterior.expectation { p in
                let spread = (p * (1 - p) * posterior.inflation / packets).squareRoot()
                let q = spread > 0 ? VerdictJudge.upperTail((threshold - p) / spread) : (p > threshold ? 1 : 0)
                return min(1, independent * q)
            }
        case .constantAudioInputLevel, .constantAudioOutputLevel:
            guard judge.maximumSamples >= WarningsEngine.audioLevelWindow else { return 0 }
            let levels = samples.suffix(WarningsEngine.audioLevelWindow).map {
                Double(warning == .constantAudioInputLevel ? $0.audioInputLevel : $0.audioOutputLevel)
            }
            guard levels.count >= 2 else { return 1 }
            let clearing = WarningsEngine.audioLevelClearThreshold / 100 * WarningsEngine.maximumAudioLevel
            return RunningSummary(levels).standardDeviation > clearing ? 0 : 1
        }
    }

    /// The chance that "3 of the last 5 beyond `threshold`" fires within the maximum, integrated
    /// over the mean's uncertainty (41 nodes over ±4 standard errors).
    private func windowed(center: Double, error: Double, spread: Double, threshold: Double, above: Bool) -> Double {
        let windows = remaining
        guard windows > 0 else { return 0 }
        let nodes = 41
        var total = 0.0
        var weights = 0.0
        for index in 0..<nodes {
            let x = -4 + 8 * Double(index) / Double(nodes - 1)
            let weight = exp(-x * x / 2)
            let mean = center + x * error
            let q = VerdictJudge.upperTail((above ? threshold - mean : mean - threshold) / max(spread, 1e-9))
            total += weight * min(1, windows * 10 * q * q * q)
            weights += weight
        }
        return weights > 0 ? total / weights : 1
    }
}

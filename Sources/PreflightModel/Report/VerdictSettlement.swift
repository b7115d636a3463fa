/// When and why an adaptive preflight test ended (``TestDuration/adaptive(maximum:)``): the
/// report's `verdictSettlement`, added beside Twilio's fields; absent for a fixed duration.
public struct VerdictSettlement: Sendable, Hashable, Codable {
    /// Whether the verdict settled before the maximum (`false`: the maximum ended the test, and
    /// its verdict is the maximum-length test's; ``unsettled`` says why).
    public var settled: Bool
    /// Seconds of media (samples) when the verdict settled, or when the test ended unsettled.
    public var afterSeconds: Double
    /// The test's maximum, seconds.
    public var maximumSeconds: Double
    /// One-sided 95 % lower bound of the expected mean MOS when the test ended.
    public var meanMOSLower: Double
    /// One-sided 95 % upper bound of the expected mean MOS.
    public var meanMOSUpper: Double
    /// Round trips whose fate is known (echoed or lost) and lost, the loss estimate's evidence.
    public var roundTrips: Int
    /// Round trips lost.
    public var roundTripsLost: Int
    /// Loss probes whose fate is known (answered or lost), counted with the round trips for the
    /// loss estimate of the stopping rule only; absent when none was sent.
    public var lossProbes: Int?
    /// Loss probes lost.
    public var lossProbesLost: Int?
    /// Warnings the rules raised.
    public var warningsRaised: [QualityWarning]
    /// Warnings ruled out at 95 %: the rules would not raise them within the maximum.
    public var warningsRuledOut: [QualityWarning]
    /// Warnings neither raised nor ruled out (only when the maximum ended the test).
    public var warningsUndecided: [QualityWarning]
    /// Why the test ended, in words.
    public var reason: String
    /// The callQuality band the bounds decided when the verdict settled (absent when it did not).
    public var callQuality: CallQuality?
    /// Why the verdict did not settle, in plain words (only when the maximum ended the test).
    public var unsettled: UnsettledVerdict?
    /// Seconds of media when the test ended, when it went on past its settled verdict to its
    /// maximum (``PreflightOptions``' `continuesAfterSettling`, the accuracy benchmark's mode):
    /// the report's verdict is then the maximum's, and this record says when, and on what, the
    /// test would have ended.
    public var continuedToSeconds: Double?

    /// Creates a record.
    public init(
        settled: Bool, afterSeconds: Double, maximumSeconds: Double, meanMOSLower: Double, meanMOSUpper: Double,
        roundTrips: Int, roundTripsLost: Int, warningsRaised: [QualityWarning], warningsRuledOut: [QualityWarning],
        warningsUndecided: [QualityWarning], reason: String, callQuality: CallQuality? = nil, unsettled: UnsettledVerdict? = nil,
        continuedToSeconds: Double? = nil, lossProbes: Int? = nil, lossProbesLost: Int? = nil
    ) {
        self.settled = settled
        self.afterSeconds = afterSeconds
        self.maximumSeconds = maximumSeconds
        self.meanMOSLower = meanMOSLower
        self.meanMOSUpper = meanMOSUpper
        self.roundTrips = roundTrips
        self.roundTripsLost = roundTripsLost
        self.warningsRaised = warningsRaised
        self.warningsRuledOut = warningsRuledOut
        self.warningsUndecided = warningsUndecided
        self.reason = reason
        self.callQuality = callQuality
        self.unsettled = unsettled
        self.continuedToSeconds = continuedToSeconds
        self.lossProbes = lossProbes
        self.lossProbesLost = lossProbesLost
    }
}

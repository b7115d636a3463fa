/// When and why an adaptive preflight test ended (``TestDuration/adaptive(maximum:)``): the
/// report's `verdictSettlement`, added beside Twilio's fields; absent for a fixed duration.
public struct VerdictSettlement: Sendable, Hashable, Codable {
    /// Whether the verdict settled before the maximum (`false`: the maximum ended the test, and
    /// its verdict is the maximum-length test's).
    public var settled: Bool
    /// Seconds of media (samples) when the test ended.
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
    /// Warnings the rules raised.
    public var warningsRaised: [QualityWarning]
    /// Warnings ruled out at 95 %: the rules would not raise them within the maximum.
    public var warningsRuledOut: [QualityWarning]
    /// Warnings neither raised nor ruled out (only when the maximum ended the test).
    public var warningsUndecided: [QualityWarning]
    /// Why the test ended, in words.
    public var reason: String

    /// Creates a record.
    public init(
        settled: Bool, afterSeconds: Double, maximumSeconds: Double, meanMOSLower: Double, meanMOSUpper: Double,
        roundTrips: Int, roundTripsLost: Int, warningsRaised: [QualityWarning], warningsRuledOut: [QualityWarning],
        warningsUndecided: [QualityWarning], reason: String
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
    }
}

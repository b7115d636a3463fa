/// What ``VerdictJudge`` concluded from the evidence at one instant.
public struct VerdictJudgement: Sendable, Hashable {
    /// Whether the callQuality band is decided and every warning raised or ruled out.
    public var settled: Bool
    /// The band the bounds decide, when they decide one.
    public var band: CallQuality?
    /// One-sided 95 % lower bound of the expected mean MOS.
    public var meanMOSLower: Double
    /// One-sided 95 % upper bound of the expected mean MOS.
    public var meanMOSUpper: Double
    /// The warnings the rules raised.
    public var raised: [QualityWarning]
    /// The warnings ruled out at 95 % (the rules would not raise them within the maximum).
    public var ruledOut: [QualityWarning]
    /// The warnings neither raised nor ruled out.
    public var undecided: [QualityWarning]
    /// Why, in words.
    public var reason: String

    /// The report's record of this judgement, made when the test ended on it (or at its maximum).
    public func settlement(afterSeconds: Double, maximumSeconds: Double, roundTripLoss: RoundTripLoss) -> VerdictSettlement {
        VerdictSettlement(
            settled: settled, afterSeconds: afterSeconds, maximumSeconds: maximumSeconds, meanMOSLower: meanMOSLower,
            meanMOSUpper: meanMOSUpper, roundTrips: roundTripLoss.decided, roundTripsLost: roundTripLoss.lost,
            warningsRaised: raised, warningsRuledOut: ruledOut, warningsUndecided: undecided,
            reason: settled ? reason : "the maximum of \(Int(maximumSeconds)) s was reached before the verdict settled: \(reason)")
    }
}

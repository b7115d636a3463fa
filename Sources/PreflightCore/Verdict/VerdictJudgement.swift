/// What ``VerdictJudge`` concluded from the evidence at one instant.
public struct VerdictJudgement: Sendable, Hashable {
    /// Whether the callQuality band is decided and every warning raised or ruled out.
    public var settled: Bool
    /// The band the bounds decide, when they decide one.
    public var band: CallQuality?
    /// One-sided 95 % bounds of the expected mean MOS.
    public var meanMOSLower: Double
    public var meanMOSUpper: Double
    /// The warnings raised, ruled out, and neither.
    public var raised: [QualityWarning]
    public var ruledOut: [QualityWarning]
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

/// What an adaptive test knows when it asks whether its verdict is settled: its samples, every
/// round trip's RTT and fate, and the warnings raised so far.
public struct VerdictEvidence: Sendable {
    /// The test's once-a-second samples so far.
    public var samples: [StatsSample]
    /// Every echoed packet's RTT, ms.
    public var roundTrips: RunningSummary
    /// Every packet's round trip: echoed or lost, and the runs of losses.
    public var roundTripLoss: RoundTripLoss
    /// The warnings raised at any time so far (a raised warning stays in the report).
    public var raised: Set<QualityWarning>

    /// Creates evidence.
    public init(samples: [StatsSample], roundTrips: RunningSummary, roundTripLoss: RoundTripLoss, raised: Set<QualityWarning>) {
        self.samples = samples
        self.roundTrips = roundTrips
        self.roundTripLoss = roundTripLoss
        self.raised = raised
    }
}

/// What an adaptive test knows when it asks whether its verdict is settled: its samples, every
/// round trip's RTT and fate, the loss probes' fates, and the warnings raised so far.
public struct VerdictEvidence: Sendable {
    /// The test's once-a-second samples so far.
    public var samples: [StatsSample]
    /// Every echoed packet's RTT, ms.
    public var roundTrips: RunningSummary
    /// Every packet's round trip: echoed or lost, and the runs of losses.
    public var roundTripLoss: RoundTripLoss
    /// The loss probes' fates (sent in a test's first seconds): more round trips' fates for the
    /// loss estimate, and nothing else (docs/measurement.md, "Loss probes").
    public var probes: ProbeFates
    /// The warnings raised at any time so far (a raised warning stays in the report).
    public var raised: Set<QualityWarning>

    /// Creates evidence.
    public init(
        samples: [StatsSample], roundTrips: RunningSummary, roundTripLoss: RoundTripLoss, probes: ProbeFates = ProbeFates(),
        raised: Set<QualityWarning>
    ) {
        self.samples = samples
        self.roundTrips = roundTrips
        self.roundTripLoss = roundTripLoss
        self.probes = probes
        self.raised = raised
    }

    /// Every decided fate, the media's round trips' and the probes': how many, how many lost,
    /// and the mean length of a run of losses (runs counted in each stream apart).
    public var fates: (decided: Int, lost: Int, meanLossRun: Double) {
        let lost = roundTripLoss.lost + probes.lost
        let runs = roundTripLoss.lossRuns + probes.lossRuns
        return (roundTripLoss.decided + probes.decided, lost, runs > 0 ? Double(lost) / Double(runs) : 1)
    }
}

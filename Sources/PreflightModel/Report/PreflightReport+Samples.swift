extension PreflightReport {
    /// Sets ``statsSamples`` and derives the fields computed from them: ``networkStats`` (average,
    /// min and max of jitter, MOS and RTT) and ``callQuality`` (from the average MOS; `nil` when
    /// there are no samples), and the added ``uplink``, ``downlink`` and ``eModelMOS`` summaries.
    public mutating func setSamples(_ samples: [StatsSample]) {
        statsSamples = samples
        networkStats = NetworkStats(samples: samples)
        callQuality = samples.isEmpty ? nil : CallQuality(averageMOS: networkStats.mos.average)
        uplink = DirectionSummary(samples: samples, direction: \.uplink)
        downlink = DirectionSummary(samples: samples, direction: \.downlink)
        let eModel = samples.compactMap(\.eModelMOS)
        eModelMOS = eModel.isEmpty ? nil : MetricStats(eModel)
    }
}

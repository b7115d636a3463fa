extension PreflightReport {
    /// Sets ``statsSamples`` and derives the fields computed from them: ``networkStats`` (average,
    /// min and max of jitter, MOS and RTT) and ``callQuality`` (from the average MOS; `nil` when
    /// there are no samples).
    public mutating func setSamples(_ samples: [StatsSample]) {
        statsSamples = samples
        networkStats = NetworkStats(samples: samples)
        callQuality = samples.isEmpty ? nil : CallQuality(averageMOS: networkStats.mos.average)
    }
}

extension BandwidthEstimator {
    /// The estimator's thresholds (docs/measurement.md, "Bandwidth").
    public struct Configuration: Sendable, Hashable {
        /// The smallest queueing delay that marks the knee, seconds. Default 4 ms: above the
        /// timer and scheduling noise of a loaded host, below what 30 ms of overdrive adds.
        public var delayThresholdFloor: Double
        /// The knee threshold as a multiple of the 90th percentile of the queueing delay before
        /// it, so a jittery path does not read as a queue. Default 3.
        public var noiseMultiplier: Double
        /// The share of packets after the knee that may wait less than the threshold. Default 5 %.
        public var maximumLowFraction: Double
        /// The fewest packets after the knee an estimate is made from. Default 30.
        public var minimumPacketsAfterKnee: Int
        /// The shortest time they must span, seconds. Default 0.3.
        public var minimumSpan: Double
        /// How far the two halves' rates may differ, as a fraction of the larger. Default 10 %.
        public var halvesTolerance: Double
        /// A knee is a bottleneck only if the packets after it crossed at less than this share of
        /// the rate they were offered at. Default 0.9 (the overdrive offers 1.5 × the bottleneck).
        public var saturationRatio: Double
        /// Counts each packet's headers (``ProbeArrival/wireBytes``). Default `true`; `false` is a
        /// measurement broken on purpose (payload bytes only) for the accuracy benchmark.
        public var countsHeaders: Bool
        /// The headers `countsHeaders` false leaves out, bytes. Default 42 (IPv4).
        public var wireOverhead: Int
        /// Averages the whole train instead of the packets after the knee. Default `false`; `true`
        /// is a measurement broken on purpose for the accuracy benchmark.
        public var averagesWholeTrain: Bool

        /// Creates a configuration with the defaults above.
        public init(
            delayThresholdFloor: Double = 0.004, noiseMultiplier: Double = 3, maximumLowFraction: Double = 0.05,
            minimumPacketsAfterKnee: Int = 30, minimumSpan: Double = 0.3, halvesTolerance: Double = 0.10, saturationRatio: Double = 0.9,
            countsHeaders: Bool = true, wireOverhead: Int = 42, averagesWholeTrain: Bool = false
        ) {
            self.delayThresholdFloor = delayThresholdFloor
            self.noiseMultiplier = noiseMultiplier
            self.maximumLowFraction = maximumLowFraction
            self.minimumPacketsAfterKnee = minimumPacketsAfterKnee
            self.minimumSpan = minimumSpan
            self.halvesTolerance = halvesTolerance
            self.saturationRatio = saturationRatio
            self.countsHeaders = countsHeaders
            self.wireOverhead = wireOverhead
            self.averagesWholeTrain = averagesWholeTrain
        }
    }
}

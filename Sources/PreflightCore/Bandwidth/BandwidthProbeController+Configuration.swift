extension BandwidthProbeController {
    /// The probe's schedule (docs/measurement.md, "Bandwidth"). The defaults reach the ceiling of a
    /// 5 Mbit/s expectation (7.5 Mbit/s) from 100 kbit/s in 1.8 s, and finish within 3 s on any
    /// path, so that a direction's verdict comes in under 5 s with the feedback delay.
    public struct Configuration: Sendable, Hashable {
        /// The first step's rate, bps. Default 100,000 (the lowest expected bitrate).
        public var startRate: Double
        /// Each step's rate over the previous one. Default 1.5.
        public var stepFactor: Double
        /// Seconds per step. Default 0.15.
        public var stepDuration: Double
        /// The ceiling over the expected bitrate. Default 1.5: a path carrying the expected bitrate
        /// with no room to spare still saturates below it.
        public var ceilingFactor: Double
        /// The overdrive over the rate at the knee. Default 1.5 (at least 1.3 keeps a token
        /// bucket's queue from emptying).
        public var overdriveFactor: Double
        /// Seconds of overdrive after the knee. Default 1.
        public var measureDuration: Double
        /// Seconds at the ceiling without a knee before concluding "at least expected". Default 0.8.
        public var holdDuration: Double
        /// The longest a direction sends, seconds. Default 4.
        public var maximumDuration: Double
        /// Queueing delay over the lowest one-way delay that signals the knee, seconds. Default 5 ms.
        public var kneeDelay: Double
        /// Packets in a row over ``kneeDelay`` that make the knee. Default 4.
        public var kneePackets: Int
        /// Packets over which loss is judged. Default 20.
        public var lossWindow: Int
        /// Loss over ``lossWindow`` that also makes the knee (a policer drops instead of queueing). Default 20 %.
        public var kneeLossFraction: Double
        /// Packets in a row back within half of ``kneeDelay`` of the lowest delay, while
        /// overdriving, that withdraw a knee as noise. Default 10.
        public var falseKneePackets: Int
        /// Seconds after the knee before the overdrive's own packets are judged. Default 0.15.
        public var overdriveSettle: Double
        /// The overdrive's packets delivered at this share of their offered rate or more withdraw
        /// the knee. Default 0.9.
        public var saturationRatio: Double

        /// Creates a configuration with the defaults above.
        public init(
            startRate: Double = 100_000, stepFactor: Double = 1.5, stepDuration: Double = 0.15, ceilingFactor: Double = 1.5,
            overdriveFactor: Double = 1.5, measureDuration: Double = 1, holdDuration: Double = 0.8, maximumDuration: Double = 4,
            kneeDelay: Double = 0.005, kneePackets: Int = 4, lossWindow: Int = 20, kneeLossFraction: Double = 0.2,
            falseKneePackets: Int = 10, overdriveSettle: Double = 0.15, saturationRatio: Double = 0.9
        ) {
            self.falseKneePackets = falseKneePackets
            self.overdriveSettle = overdriveSettle
            self.saturationRatio = saturationRatio
            self.startRate = startRate
            self.stepFactor = stepFactor
            self.stepDuration = stepDuration
            self.ceilingFactor = ceilingFactor
            self.overdriveFactor = overdriveFactor
            self.measureDuration = measureDuration
            self.holdDuration = holdDuration
            self.maximumDuration = maximumDuration
            self.kneeDelay = kneeDelay
            self.kneePackets = kneePackets
            self.lossWindow = lossWindow
            self.kneeLossFraction = kneeLossFraction
        }
    }
}

extension ReceiveStatistics {
    /// Loss over one reporting interval (RFC 3550 A.3): the packets expected and received since
    /// the previous ``ReceiveStatistics/closeInterval()``.
    public struct Interval: Sendable, Hashable, Codable {
        /// Packets expected in the interval.
        public var expected: Int
        /// Distinct packets received in the interval (late packets count in the interval they arrive in).
        public var received: Int
        /// Packets lost in the interval, never below 0 (late arrivals can make A.3's value negative).
        public var lost: Int
        /// The RTCP 8-bit fraction lost: ⌊lost·256 / expected⌋, 0 when nothing was expected or lost.
        public var fractionLost: UInt8
        /// Loss as a percentage of packets expected in the interval, 0 to 100.
        public var fractionLostPercent: Double

        /// Creates an interval report.
        public init(expected: Int, received: Int, lost: Int, fractionLost: UInt8, fractionLostPercent: Double) {
            self.expected = expected
            self.received = received
            self.lost = lost
            self.fractionLost = fractionLost
            self.fractionLostPercent = fractionLostPercent
        }
    }

    /// Ends the current interval and returns its loss (RFC 3550 A.3).
    public mutating func closeInterval() -> Interval {
        let expectedNow = expected
        let expectedInterval = expectedNow - expectedPrior
        expectedPrior = expectedNow
        let receivedInterval = received - receivedPrior
        receivedPrior = received
        let lostInterval = Swift.max(0, expectedInterval - receivedInterval)
        guard expectedInterval > 0, lostInterval > 0 else {
            return Interval(
                expected: Swift.max(0, expectedInterval), received: receivedInterval,
                lost: 0, fractionLost: 0, fractionLostPercent: 0)
        }
        let fraction = Swift.min(255, (lostInterval << 8) / expectedInterval)
        return Interval(
            expected: expectedInterval,
            received: receivedInterval,
            lost: lostInterval,
            fractionLost: UInt8(fraction),
            fractionLostPercent: Double(lostInterval) / Double(expectedInterval) * 100)
    }
}

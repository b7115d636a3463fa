/// A Gilbert–Elliott two-state loss channel: bursts of loss, as on a congested or wireless link.
public struct GilbertElliott: Sendable, Hashable {
    /// Probability of going from the good to the bad state, per packet.
    public var goodToBad: Double
    /// Probability of going from the bad to the good state, per packet (1 / mean burst length).
    public var badToGood: Double
    /// Probability that a packet is lost in the bad state; 1 by default.
    public var lossInBad: Double
    /// Probability that a packet is lost in the good state; 0 by default.
    public var lossInGood: Double

    /// Creates a channel from its transition and loss probabilities.
    public init(goodToBad: Double, badToGood: Double, lossInBad: Double = 1, lossInGood: Double = 0) {
        self.goodToBad = goodToBad
        self.badToGood = badToGood
        self.lossInBad = lossInBad
        self.lossInGood = lossInGood
    }

    /// A channel that loses every packet in the bad state, with the given long-run loss (0…1)
    /// and mean burst length in packets (≥ 1).
    public static func bursty(meanLoss: Double, meanBurst: Double) -> GilbertElliott {
        let r = 1 / Swift.max(1, meanBurst)
        let loss = Swift.min(Swift.max(meanLoss, 0), 0.99)
        return GilbertElliott(goodToBad: loss * r / (1 - loss), badToGood: r)
    }

    /// The long-run share of packets lost.
    public var meanLoss: Double {
        let sum = goodToBad + badToGood
        guard sum > 0 else { return lossInGood }
        let bad = goodToBad / sum
        return bad * lossInBad + (1 - bad) * lossInGood
    }
}

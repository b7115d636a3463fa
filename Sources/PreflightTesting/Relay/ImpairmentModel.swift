import PreflightCore

/// One direction's seeded decisions: drop, or when each copy leaves (the same model as the
/// lab's NFQUEUE delayer, scripts/labkit/impair.py, plus duplication and reordering).
struct ImpairmentModel: Sendable {
    let impairment: Impairment
    private var random: SplitMix64
    private var bad = false
    private var lastRelease = Duration.zero

    init(_ impairment: Impairment, seed: UInt64) {
        self.impairment = impairment
        random = SplitMix64(seed: seed)
    }

    private mutating func chance(_ p: Double) -> Bool {
        p > 0 && Double.random(in: 0..<1, using: &random) < p
    }

    /// Release times of the copies of a datagram that arrived at `arrival`; empty to drop it.
    mutating func decide(arrival: Duration) -> [Duration] {
        var lost = false
        if let burst = impairment.burst {
            // Transition first, then lose with the state's probability.
            if bad { if chance(burst.badToGood) { bad = false } } else if chance(burst.goodToBad) { bad = true }
            if chance(bad ? burst.lossInBad : burst.lossInGood) { lost = true }
        }
        if chance(impairment.loss) { lost = true }
        if lost { return [] }
        var copies = [release(arrival: arrival)]
        if chance(impairment.duplication) { copies.append(release(arrival: arrival)) }
        return copies
    }

    private mutating func release(arrival: Duration) -> Duration {
        var delay = impairment.delay
        if impairment.jitter > .zero {
            let spread = impairment.jitter / .milliseconds(1)
            delay += .microseconds(Int64((Double.random(in: -spread...spread, using: &random) * 1000).rounded()))
        }
        var at = arrival + Swift.max(.zero, delay)
        if chance(impairment.reordering) { return at + impairment.reorderDelay }
        if impairment.fifo, at < lastRelease { at = lastRelease }
        lastRelease = at
        return at
    }
}

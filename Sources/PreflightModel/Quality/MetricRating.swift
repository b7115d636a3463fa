/// Telnyx's network-metric guidelines ("Telnyx: Pre-call diagnosis", docs/references.md) as
/// contiguous bands.
///
/// | metric | excellent | good | fair | poor |
/// |---|---|---|---|---|
/// | jitter (ms) | < 20 | 20…50 | (50, 100] | > 100 |
/// | RTT (ms) | < 100 | 100…200 | (200, 400] | > 400 |
/// | packet loss (%) | < 1 | 1…3 | (3, 5] | > 5 |
///
/// The guideline text overlaps at the edges ("20-50ms: Good", "50-100ms: Fair"); the upper
/// edges are taken as inclusive so that "poor" RTT is exactly the high-rtt warning's > 400 ms and
/// loss leaves "good" exactly at the high-packets-lost-fraction warning's > 3 %.
/// Negative values are clamped to 0 (excellent); NaN has no rating (the initialisers return nil).
public enum MetricRating: String, Sendable, Hashable, Codable, CaseIterable {
    /// Best band.
    case excellent
    /// Second band.
    case good
    /// Third band.
    case fair
    /// Worst band.
    case poor

    /// Rates jitter in ms; nil for NaN.
    public init?(jitterMilliseconds: Double) {
        self.init(jitterMilliseconds, excellentBelow: 20, goodUpTo: 50, fairUpTo: 100)
    }

    /// Rates round-trip time in ms; nil for NaN.
    public init?(rttMilliseconds: Double) {
        self.init(rttMilliseconds, excellentBelow: 100, goodUpTo: 200, fairUpTo: 400)
    }

    /// Rates packet loss in % (0–100); nil for NaN.
    public init?(packetLossPercent: Double) {
        self.init(packetLossPercent, excellentBelow: 1, goodUpTo: 3, fairUpTo: 5)
    }

    private init?(_ value: Double, excellentBelow: Double, goodUpTo: Double, fairUpTo: Double) {
        if value.isNaN { return nil }
        let value = Swift.max(0, value)
        if value < excellentBelow {
            self = .excellent
        } else if value <= goodUpTo {
            self = .good
        } else if value <= fairUpTo {
            self = .fair
        } else {
            self = .poor
        }
    }
}

/// Agora's network quality rating ("Agora: Last-mile network probe test", `AgoraNetworkQuality`), with
/// Agora's raw values.
///
/// ``init(rtt:jitter:packetLossPercent:packetsReceived:)`` rates a measurement window:
/// - nothing received → ``down``; a NaN input → ``unknown``;
/// - otherwise by the design's MOS (``MeanOpinionScore``): ≥ 4.2 excellent, ≥ 4.0 good,
///   ≥ 3.6 poor, ≥ 3.1 bad, below veryBad;
/// - then a guard that can only worsen it, because that MOS forgives moderate RTT, jitter and
///   loss (RTT 200 ms, jitter 50 ms or loss 3 % alone still give MOS ≥ 4.2): each metric's
///   ``MetricRating`` (Telnyx bands) caps the rating: good → at best ``good``, fair → at best
///   ``poor``, poor (RTT > 400 ms, jitter > 100 ms, loss > 5 %) → at best ``bad``.
///
/// ``unknown`` (Agora's first callback) and ``detecting`` are states the caller reports before
/// it has a window of data; the rating never returns them except ``unknown`` for NaN input.
/// ``unsupported`` (7) is kept so Agora's values round-trip, and is never produced.
public enum NetworkQuality: Int, Sendable, Hashable, Codable, CaseIterable {
    /// 0: quality not known yet.
    case unknown = 0
    /// 1: excellent.
    case excellent = 1
    /// 2: good; a little worse than excellent.
    case good = 2
    /// 3: users notice flaws but can communicate.
    case poor = 3
    /// 4: users can barely communicate.
    case bad = 4
    /// 5: users cannot communicate.
    case veryBad = 5
    /// 6: the network is down: nothing received.
    case down = 6
    /// 7: Agora's "unsupported"; never produced by Preflight.
    case unsupported = 7
    /// 8: the probe is still measuring.
    case detecting = 8

    /// Rates one measurement window.
    /// - Parameters:
    ///   - rtt: round-trip time, ms.
    ///   - jitter: interarrival jitter, ms.
    ///   - packetLossPercent: loss in the window, % (0–100).
    ///   - packetsReceived: packets received in the window; 0 (or less) means ``down``.
    public init(rtt: Double, jitter: Double, packetLossPercent: Double, packetsReceived: Int) {
        if packetsReceived <= 0 {
            self = .down
            return
        }
        var rating = NetworkQuality(
            mos: MeanOpinionScore.mos(rtt: rtt, jitter: jitter, packetLossPercent: packetLossPercent))
        guard rating != .unknown,
            let rttRating = MetricRating(rttMilliseconds: rtt),
            let jitterRating = MetricRating(jitterMilliseconds: jitter),
            let lossRating = MetricRating(packetLossPercent: packetLossPercent)
        else {
            self = .unknown
            return
        }
        rating = rating.atBest(Self.cap(for: rttRating))
            .atBest(Self.cap(for: jitterRating))
            .atBest(Self.cap(for: lossRating))
        self = rating
    }

    /// The MOS band alone: ≥ 4.2 excellent, ≥ 4.0 good, ≥ 3.6 poor, ≥ 3.1 bad, below veryBad;
    /// NaN is ``unknown``.
    public init(mos: Double) {
        if mos.isNaN {
            self = .unknown
        } else if mos >= 4.2 {
            self = .excellent
        } else if mos >= 4.0 {
            self = .good
        } else if mos >= 3.6 {
            self = .poor
        } else if mos >= 3.1 {
            self = .bad
        } else {
            self = .veryBad
        }
    }

    /// The best rating a metric in this Telnyx band allows.
    private static func cap(for metric: MetricRating) -> NetworkQuality {
        switch metric {
        case .excellent: .excellent
        case .good: .good
        case .fair: .poor
        case .poor: .bad
        }
    }

    /// `self`, or `limit` when `limit` is worse (both rated 1…5): a cap on a rating.
    public func atBest(_ limit: NetworkQuality) -> NetworkQuality {
        rawValue >= limit.rawValue ? self : limit
    }
}

/// 100ms's `connectionQualityScore` ("100ms: Pre-call diagnostics"): a floating value from 0 to 5,
/// 5 best.
///
/// Derived from MOS linearly: (MOS − 1)/(4.5 − 1)·5, clamped to [0, 5], so MOS 1 is 0 and MOS 4.5
/// is 5. With no data (not connected, nil or NaN MOS) the score is 0. Encodes as a bare number.
public struct ConnectionQualityScore: Sendable, Hashable, Comparable, Codable {
    /// The score, 0 to 5.
    public let value: Double

    /// The score of a connection with no measurement: 0.
    public static let noData = ConnectionQualityScore(clamping: 0)

    /// The score for `mos` (1.0–4.5 scale); 0 for nil or NaN.
    public init(mos: Double?) {
        guard let mos, !mos.isNaN else {
            self.init(clamping: 0)
            return
        }
        self.init(clamping: (mos - 1) / (4.5 - 1) * 5)
    }

    private init(clamping score: Double) {
        value = Swift.min(5, Swift.max(0, score))
    }

    /// Orders by ``value``.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.value < rhs.value }

    /// Decodes a bare number, clamped to [0, 5]; NaN decodes as 0.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(Double.self)
        self.init(clamping: raw.isNaN ? 0 : raw)
    }

    /// Encodes ``value`` as a bare number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

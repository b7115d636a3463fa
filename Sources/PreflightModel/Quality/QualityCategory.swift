/// Telnyx's call-quality category ("Telnyx: Pre-call diagnosis", "MOS Score Guidelines").
///
/// From MOS: 4.0 and above excellent, 3.0 up to 4.0 good, 2.0 up to 3.0 fair, below 2.0 poor;
/// no MOS (nil) or NaN is unknown. Lower bounds are inclusive, so the bands are contiguous.
public enum QualityCategory: String, Sendable, Hashable, Codable, CaseIterable {
    /// MOS ≥ 4.0: users very satisfied.
    case excellent
    /// 3.0 ≤ MOS < 4.0: users satisfied.
    case good
    /// 2.0 ≤ MOS < 3.0: some users dissatisfied.
    case fair
    /// MOS < 2.0: many users dissatisfied.
    case poor
    /// No MOS available.
    case unknown

    /// The category of `mos` (1.0–5.0 scale); `.unknown` for nil or NaN.
    public init(mos: Double?) {
        guard let mos, !mos.isNaN else {
            self = .unknown
            return
        }
        if mos >= 4.0 {
            self = .excellent
        } else if mos >= 3.0 {
            self = .good
        } else if mos >= 2.0 {
            self = .fair
        } else {
            self = .poor
        }
    }
}

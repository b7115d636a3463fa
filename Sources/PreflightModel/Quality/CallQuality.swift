/// The report's `callQuality` ("Twilio Voice SDK: PreflightTest"), from the average MOS of the test.
///
/// Bands: excellent above 4.2; great 4.1 to 4.2 inclusive; good from 3.7 up to 4.1; fair from
/// 3.1 up to 3.7; degraded below 3.1. Twilio lists good as 3.7–4.0 and fair as 3.1–3.6 and
/// degraded as 3.0 or below, which leaves 4.0–4.1, 3.6–3.7 and 3.0–3.1 unassigned; these bands
/// are contiguous instead, each lower bound inclusive. Encodes as its Int.
public enum CallQuality: Int, Sendable, Hashable, Codable, CaseIterable {
    /// 0: average MOS above 4.2.
    case excellent = 0
    /// 1: average MOS from 4.1 to 4.2 inclusive.
    case great = 1
    /// 2: average MOS from 3.7 (inclusive) to 4.1.
    case good = 2
    /// 3: average MOS from 3.1 (inclusive) to 3.7.
    case fair = 3
    /// 4: average MOS below 3.1.
    case degraded = 4

    /// The band of `averageMOS`; `nil` for NaN (no MOS measured: the report leaves the field out
    /// rather than claim a quality).
    public init?(averageMOS: Double) {
        if averageMOS.isNaN { return nil }
        if averageMOS > 4.2 {
            self = .excellent
        } else if averageMOS >= 4.1 {
            self = .great
        } else if averageMOS >= 3.7 {
            self = .good
        } else if averageMOS >= 3.1 {
            self = .fair
        } else {
            self = .degraded
        }
    }
}

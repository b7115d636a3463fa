/// Why an adaptive test's verdict did not settle before its maximum, in plain words: the
/// report's `verdictSettlement.unsettled`, beside Twilio's fields. A test that cannot settle sits
/// on a callQuality band edge or a warning's threshold, where more time narrows the bounds but
/// the truth stays on the line; the maximum's verdict is then the report's, and this says how
/// close it was.
public struct UnsettledVerdict: Sendable, Hashable, Codable {
    /// The callQuality bands the mean MOS's 95 % bounds still spanned, best first (empty when the
    /// band was decided).
    public var bands: [CallQuality]
    /// The warnings neither raised nor ruled out in the last judgement before the maximum.
    public var warnings: [QualityWarning]
    /// In plain words, e.g. "mean MOS 4.21 ± 0.03: between excellent and great (the 4.2 edge is
    /// inside its 95 % bounds)"; one clause a band or warning, joined by "; ".
    public var summary: String

    /// Creates a record.
    public init(bands: [CallQuality], warnings: [QualityWarning], summary: String) {
        self.bands = bands
        self.warnings = warnings
        self.summary = summary
    }
}

/// One device's part in a connectivity check: whether it was used and how it did.
public struct DeviceTestOutcome: Sendable, Hashable, Codable {
    /// What happened to a device in the check.
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// The device delivered (or took) media.
        case passed
        /// The device was asked for and failed: ``DeviceTestOutcome/error`` says why.
        case failed
        /// No device was asked for: a synthetic source stood in (``DeviceTestOutcome/source`` names it).
        case notTested
    }

    /// Whether a real device was used.
    public var tested: Bool
    /// The outcome.
    public var outcome: Outcome
    /// What supplied (or took) the media: the device's name, or the synthetic source's
    /// (`"synthetic testsrc"`, `"test tone 440 Hz"`).
    public var source: String
    /// Why the device failed, when it did.
    public var error: ReportError?

    /// Creates an outcome.
    public init(tested: Bool, outcome: Outcome, source: String, error: ReportError? = nil) {
        self.tested = tested
        self.outcome = outcome
        self.source = source
        self.error = error
    }
}

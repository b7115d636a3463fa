/// How long a preflight test's media flows: a fixed time (Twilio's behaviour), or as long as its
/// verdict needs (``adaptive(maximum:)``).
///
/// `.seconds(10)` and `.milliseconds(…)` make fixed durations, so options written for a fixed
/// `Duration` read the same.
public enum TestDuration: Sendable, Hashable {
    /// Media flows for exactly this long.
    case fixed(Duration)
    /// The test ends as soon as its verdict is settled (the callQuality band decided at 95 %
    /// confidence and every quality warning raised or ruled out at the same confidence: see
    /// docs/measurement.md, "Adaptive duration"), and at `maximum` at the latest. The report's
    /// `verdictSettlement` says when and why it ended. Applies to the echo application; a
    /// record-playback test lasts as long as the edge's application.
    case adaptive(maximum: Duration)

    /// The maximum an adaptive test runs when none is given: 30 s, the length the accuracy
    /// benchmark compares verdicts with.
    public static let defaultAdaptiveMaximum: Duration = .seconds(30)

    /// A fixed duration of `seconds`.
    public static func seconds(_ seconds: some BinaryInteger) -> TestDuration { .fixed(.seconds(seconds)) }

    /// A fixed duration of `seconds`.
    public static func seconds(_ seconds: Double) -> TestDuration { .fixed(.seconds(seconds)) }

    /// A fixed duration of `milliseconds`.
    public static func milliseconds(_ milliseconds: some BinaryInteger) -> TestDuration { .fixed(.milliseconds(milliseconds)) }

    /// The longest the media may flow: the fixed duration, or the adaptive maximum.
    public var maximum: Duration {
        switch self {
        case .fixed(let duration): duration
        case .adaptive(let maximum): maximum
        }
    }

    /// Whether the test may end before ``maximum``.
    public var isAdaptive: Bool {
        if case .adaptive = self { return true }
        return false
    }
}

/// The score of a call's feedback (Twilio's `TVOCallFeedbackScore`): 1 (worst) to 5 (best), or
/// not reported.
public enum CallFeedbackScore: Int, Sendable, Hashable, Codable, CaseIterable {
    /// No score was given.
    case notReported = 0
    /// 1: terrible.
    case one = 1
    /// 2: bad.
    case two = 2
    /// 3: average.
    case three = 3
    /// 4: good.
    case four = 4
    /// 5: perfect.
    case five = 5
}

/// The issue a call's feedback names (Twilio's `TVOCallFeedbackIssue`); the raw value is the name
/// Insights records.
public enum CallFeedbackIssue: String, Sendable, Hashable, Codable, CaseIterable {
    /// No issue was given.
    case notReported = "not-reported"
    /// Audio cut in and out.
    case choppyAudio = "choppy-audio"
    /// The call dropped.
    case droppedCall = "dropped-call"
    /// Echo.
    case echo = "echo"
    /// Noise on the call.
    case noisyCall = "noisy-call"
    /// Delay in the audio.
    case audioLatency = "audio-latency"
    /// Only one party could hear the other.
    case oneWayAudio = "one-way-audio"
}

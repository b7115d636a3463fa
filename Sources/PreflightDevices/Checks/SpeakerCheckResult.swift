/// What a speaker check played (the 100ms `startSpeakerCheck` completion's success).
///
/// Success means the output took the audio and played it out (PulseAudio drained it); whether a
/// person heard it is theirs to say. On Linux the output's monitor hears what it plays: record
/// it to prove the audio left the application (the tests do).
public struct SpeakerCheckResult: Sendable, Hashable, Codable {
    /// What was played.
    public var source: SpeakerCheckSource
    /// The device played to (the default's real id when none was chosen).
    public var device: String
    /// Seconds played.
    public var duration: Double
    /// The RMS level of what was played, dBFS.
    public var level: Double
    /// Whether `stopSpeakerCheck()` (or cancellation) ended the check before the end of the audio.
    public var stoppedEarly: Bool

    /// Creates a result.
    public init(source: SpeakerCheckSource, device: String, duration: Double, level: Double, stoppedEarly: Bool) {
        self.source = source
        self.device = device
        self.duration = duration
        self.level = level
        self.stoppedEarly = stoppedEarly
    }
}

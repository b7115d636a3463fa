import Foundation

/// What a microphone check recorded and heard (the 100ms `startMicCheck` completion's success,
/// with the figures that tell a muted or wrong microphone from a working one).
public struct MicCheckResult: Sendable, Hashable, Codable {
    /// The recording, a 16-bit PCM WAV file; the speaker check plays it.
    public var recordingURL: URL
    /// The device recorded from (the default's real id when none was chosen).
    public var device: String
    /// Seconds recorded.
    public var duration: Double
    /// The recording's sample rate, Hz.
    public var sampleRate: Int
    /// The RMS level of each whole second, dBFS (−160 for digital silence), as `onLevelChange` got them.
    public var levels: [Double]
    /// The RMS level of the whole recording, dBFS.
    public var averageLevel: Double
    /// The loudest sample, dBFS.
    public var peakLevel: Double
    /// Whether every second was below the configuration's silence threshold (−60 dBFS by
    /// default): a muted microphone, the wrong device, or no sound in the room.
    public var isSilent: Bool
    /// Whether `stopMicCheck()` (or cancellation) ended the check before its duration.
    public var stoppedEarly: Bool

    /// Creates a result.
    public init(
        recordingURL: URL, device: String, duration: Double, sampleRate: Int, levels: [Double], averageLevel: Double,
        peakLevel: Double, isSilent: Bool, stoppedEarly: Bool
    ) {
        self.recordingURL = recordingURL
        self.device = device
        self.duration = duration
        self.sampleRate = sampleRate
        self.levels = levels
        self.averageLevel = averageLevel
        self.peakLevel = peakLevel
        self.isSilent = isSilent
        self.stoppedEarly = stoppedEarly
    }
}

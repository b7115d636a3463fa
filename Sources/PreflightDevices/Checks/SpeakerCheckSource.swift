import Foundation

/// What a speaker check played.
public enum SpeakerCheckSource: Sendable, Hashable, Codable {
    /// The last microphone check's recording.
    case micCheckRecording(URL)
    /// A file the caller chose.
    case file(URL)
    /// Preflight's bundled pre-recorded voice (no microphone check had recorded anything).
    case bundledRecording
}

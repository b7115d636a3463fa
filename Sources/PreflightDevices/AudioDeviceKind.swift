/// What an audio device does.
public enum AudioDeviceKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// A microphone, or another source of audio (a line input, an output's monitor).
    case input
    /// A speaker, headphones, or another place audio is played.
    case output
}

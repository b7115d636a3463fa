import Foundation

/// Settings of ``DeviceDiagnostics``.
public struct DeviceDiagnosticsConfiguration: Sendable {
    /// The shortest and longest microphone check, milliseconds: 1–60 s. Outside it a check fails
    /// with `invalidArgument` (70005), never clamped.
    public static let micCheckDurations = 1000...60_000

    /// The audio system the checks use; default ``PulseAudioSystem`` with libpulse's own choice of
    /// server on Linux, the platform's audio elsewhere.
    public var audioSystem: any AudioSystem
    /// The format the microphone check records in; default 48 kHz mono (8–48 kHz, 1 or 2
    /// channels; others fail the check with 70005).
    public var recordingFormat: AudioFormat
    /// Where the microphone check writes its recording; default the temporary directory.
    public var recordingDirectory: URL
    /// A second whose RMS level is below this is silent, dBFS; default −60 (a quiet room through
    /// a working microphone reads about −50; a muted one reads digital silence, −160).
    public var silenceThreshold: Double

    /// Creates a configuration; every parameter has the default described on its property.
    public init(
        audioSystem: (any AudioSystem)? = nil, recordingFormat: AudioFormat = AudioFormat(),
        recordingDirectory: URL = FileManager.default.temporaryDirectory, silenceThreshold: Double = -60
    ) {
        self.audioSystem = audioSystem ?? Self.platformAudioSystem
        self.recordingFormat = recordingFormat
        self.recordingDirectory = recordingDirectory
        self.silenceThreshold = silenceThreshold
    }

    /// The platform's audio system.
    static var platformAudioSystem: any AudioSystem {
        #if os(Linux)
        PulseAudioSystem()
        #elseif canImport(AVFoundation) && (os(macOS) || os(iOS))
        AVFoundationAudioSystem()
        #else
        UnavailableAudioSystem(reason: "no audio backend on this platform (PulseAudio on Linux, AVFoundation on macOS and iOS)")
        #endif
    }
}

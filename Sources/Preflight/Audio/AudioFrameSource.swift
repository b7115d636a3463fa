/// Where a preflight test's or a call's outgoing audio comes from when it is not the test signal
/// (``PreflightOptions/fakeMicInput`` false): a microphone (PreflightDevices'
/// `MicrophoneAudioSource`), a WAV file (``WAVFileAudioSource``), or the app's own audio.
///
/// The media session asks for 20 ms every 20 ms, on its own schedule: return what is there at
/// once (silence when the source is behind), never block.
public protocol AudioFrameSource: Sendable {
    /// The next 20 ms: 160 samples of 8 kHz mono 16-bit linear PCM (G.711's rate); fewer are
    /// padded with silence, more are cut. `nil` ends the stream.
    func nextAudioFrame() -> [Int16]?
}

/// Where a preflight test's or a call's received audio goes when it is to be heard
/// (``PreflightOptions/audioOutput``): a speaker (PreflightDevices' `SpeakerAudioSink`), or the
/// app's own player.
///
/// Called from the network's thread as packets arrive, in arrival order (duplicates and late
/// packets left out): copy the samples and return at once.
public protocol AudioFrameSink: Sendable {
    /// One packet's audio: 8 kHz mono 16-bit linear PCM (160 samples for 20 ms).
    func play(_ samples: [Int16])
}

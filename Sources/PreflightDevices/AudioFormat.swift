/// The format of an audio stream: 16-bit signed linear PCM, interleaved, at a rate and channel
/// count. Devices at other rates are converted by the audio server.
public struct AudioFormat: Sendable, Hashable, Codable {
    /// Samples per second per channel, Hz.
    public var sampleRate: Int
    /// Channels: 1 mono, 2 stereo.
    public var channels: Int

    /// Creates a format.
    /// - Parameters:
    ///   - sampleRate: Hz; default 48,000 (what Opus and most devices run at).
    ///   - channels: default 1.
    public init(sampleRate: Int = 48_000, channels: Int = 1) {
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// Bytes of one frame (a sample of every channel).
    public var bytesPerFrame: Int { 2 * channels }
}

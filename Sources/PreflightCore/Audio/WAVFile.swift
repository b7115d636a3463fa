/// A WAV file of 16-bit linear PCM (RIFF/WAVE, format 1, or WAVE_FORMAT_EXTENSIBLE with the PCM
/// subformat): what the microphone check records and the speaker check plays.
///
/// Parsing treats the bytes as hostile: every length is checked against what is left, chunks
/// other than `fmt ` and `data` are skipped, and the limits below hold before anything is
/// allocated. Anything else is a coded ``PreflightError``: `truncated` (70001), `malformed`
/// (70002), or `deviceFormatUnsupported` (70404) for a well-formed file in a format Preflight
/// does not play (8-, 24- or 32-bit samples, floats, μ-law).
public struct WAVFile: Sendable, Hashable {
    /// The most channels a file may have.
    public static let maximumChannels = 8
    /// The sample rates a file may have, Hz.
    public static let sampleRates = 4000...192_000
    /// The most sample bytes a file may hold: 64 MiB (about 11.6 minutes of 48 kHz stereo).
    public static let maximumDataBytes = 64 << 20

    /// Samples per second per channel, Hz.
    public var sampleRate: Int
    /// Interleaved channels: 1 mono, 2 stereo.
    public var channels: Int
    /// The samples, interleaved by channel (frame by frame).
    public var samples: [Int16]

    /// Creates a file's contents.
    /// - Parameters:
    ///   - sampleRate: Hz, within ``sampleRates``.
    ///   - channels: 1…``maximumChannels``.
    ///   - samples: interleaved samples; their count should be a multiple of `channels`.
    public init(sampleRate: Int, channels: Int = 1, samples: [Int16]) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.samples = samples
    }

    /// Frames (one sample per channel) in the file.
    public var frameCount: Int { channels > 0 ? samples.count / channels : 0 }

    /// The file's length in seconds.
    public var duration: Double { sampleRate > 0 ? Double(frameCount) / Double(sampleRate) : 0 }

    /// The samples as one channel: the average of each frame's channels.
    public var monoSamples: [Int16] {
        guard channels > 1 else { return samples }
        var mono = [Int16]()
        mono.reserveCapacity(frameCount)
        var index = 0
        while index + channels <= samples.count {
            var sum = 0
            for channel in 0..<channels { sum += Int(samples[index + channel]) }
            mono.append(Int16(sum / channels))
            index += channels
        }
        return mono
    }
}

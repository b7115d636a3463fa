import Foundation
internal import PreflightCore
import Synchronization

/// Audio from a WAV file (16-bit PCM, any rate and channel count: mixed to mono and converted
/// to 8 kHz), played from the start again when it ends, so that a test of any length has audio.
public final class WAVFileAudioSource: AudioFrameSource {
    private let samples: [Int16]
    private let position = Mutex(0)
    /// The file's length, seconds.
    public let duration: Double

    /// Reads and converts the file.
    /// - Parameter url: a 16-bit PCM WAV file of at most 64 MiB of samples.
    /// - Throws: ``PreflightError`` `fileUnreadable` (70203), or the WAV's code (70001, 70002,
    ///   70404); `invalidArgument` (70005) for a file with no samples.
    public init(url: URL) throws(PreflightError) {
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        guard let attributes, attributes[.type] as? FileAttributeType == .typeRegular,
            let size = attributes[.size] as? Int, size <= WAVFile.maximumDataBytes + 1 << 20
        else {
            throw PreflightError(code: .fileUnreadable, message: "\(url.path) is missing, not a regular file, or too large for a WAV")
        }
        let bytes: [UInt8]
        do {
            bytes = Array(try Data(contentsOf: url))
        } catch {
            throw PreflightError(code: .fileUnreadable, message: "cannot read \(url.path)", underlying: error)
        }
        let file = try WAVFile(parsing: bytes)
        samples = AudioResampler.resample(file.monoSamples, from: file.sampleRate, to: 8000)
        guard samples.count >= 160 else {
            throw PreflightError(code: .invalidArgument, message: "\(url.path) holds less than 20 ms of audio")
        }
        duration = Double(samples.count) / 8000
    }

    /// The next 20 ms of the file, from its start again when it ends.
    public func nextAudioFrame() -> [Int16]? {
        position.withLock { position in
            var frame = [Int16]()
            frame.reserveCapacity(160)
            while frame.count < 160 {
                let take = min(160 - frame.count, samples.count - position)
                frame += samples[position..<position + take]
                position = (position + take) % samples.count
            }
            return frame
        }
    }
}

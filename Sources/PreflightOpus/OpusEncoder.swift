import Synchronization
#if canImport(COpus)
import COpus
#endif

/// An Opus encoder for voice (`OPUS_APPLICATION_VOIP`): each 20 ms frame becomes one RTP
/// payload. Calls are serialized by a lock, so one encoder may be shared by a media source and
/// its owner.
public final class OpusEncoder: Sendable {
    /// Channels: 1 or 2.
    public let channels: Int
    /// The input's sample rate, Hz. The RTP clock stays 48 kHz whatever it is (RFC 7587 §4.1).
    public let sampleRate: Int
    #if canImport(COpus)
    private let encoder: Mutex<OpusHandle>
    #endif

    /// Creates an encoder.
    /// - Parameters:
    ///   - channels: 1 (default) or 2.
    ///   - sampleRate: the input rate: 8,000, 12,000, 16,000, 24,000 or 48,000 (default) Hz.
    /// - Throws: ``PreflightError`` `unsupportedCodec` (70103) when this build has no libopus,
    ///   `invalidArgument` (70005) for another channel count or rate.
    public init(channels: Int = 1, sampleRate: Int = OpusCodec.clockRate) throws(PreflightError) {
        try OpusCodec.checkChannels(channels)
        try OpusCodec.checkSampleRate(sampleRate)
        self.channels = channels
        self.sampleRate = sampleRate
        #if canImport(COpus)
        var status: Int32 = 0
        guard let encoder = opus_encoder_create(Int32(sampleRate), Int32(channels), OPUS_APPLICATION_VOIP, &status),
            status == OPUS_OK
        else {
            throw OpusCodec.error(status, "creating an encoder")
        }
        self.encoder = Mutex(OpusHandle(pointer: encoder))
        #else
        throw OpusCodec.unavailable
        #endif
    }

    #if canImport(COpus)
    deinit { encoder.withLock { opus_encoder_destroy($0.pointer) } }
    #endif

    /// Samples of one 20 ms frame per channel at ``sampleRate``.
    public var frameSamples: Int { sampleRate / 50 }

    /// Encodes one 20 ms frame.
    /// - Parameter pcm: ``frameSamples`` samples per channel, interleaved.
    /// - Returns: the Opus packet: an RTP payload (RFC 7587).
    /// - Throws: `invalidArgument` (70005) when `pcm` is not one 20 ms frame.
    public func encode(_ pcm: [Int16]) throws(PreflightError) -> [UInt8] {
        let frame = frameSamples
        guard pcm.count == frame * channels else {
            throw PreflightError(code: .invalidArgument, message: "Opus: a frame is \(frame * channels) samples, not \(pcm.count)")
        }
        #if canImport(COpus)
        var packet = [UInt8](repeating: 0, count: OpusCodec.maximumPayloadBytes)
        let count = encoder.withLock { handle -> Int32 in
            pcm.withUnsafeBufferPointer { samples -> Int32 in
                packet.withUnsafeMutableBufferPointer { out -> Int32 in
                    guard let input = samples.baseAddress, let output = out.baseAddress else { return OPUS_BAD_ARG }
                    return opus_encode(handle.pointer, input, Int32(frame), output, Int32(out.count))
                }
            }
        }
        guard count > 0 else { throw OpusCodec.error(count, "encoding a frame") }
        return Array(packet.prefix(Int(count)))
        #else
        throw OpusCodec.unavailable
        #endif
    }
}

#if canImport(COpus)
import COpus
#endif

/// An Opus encoder for voice (`OPUS_APPLICATION_VOIP`) at 48 kHz: each 20 ms frame becomes one
/// RTP payload. Used from one thread at a time.
public final class OpusEncoder {
    /// Channels: 1 or 2.
    public let channels: Int
    #if canImport(COpus)
    private let encoder: OpaquePointer
    #endif

    /// Creates an encoder.
    /// - Parameter channels: 1 (default) or 2.
    /// - Throws: ``PreflightError`` `unsupportedCodec` (70103) when this build has no libopus,
    ///   `invalidArgument` (70005) for another channel count.
    public init(channels: Int = 1) throws(PreflightError) {
        try OpusCodec.checkChannels(channels)
        self.channels = channels
        #if canImport(COpus)
        var status: Int32 = 0
        guard let encoder = opus_encoder_create(Int32(OpusCodec.clockRate), Int32(channels), OPUS_APPLICATION_VOIP, &status),
            status == OPUS_OK
        else {
            throw OpusCodec.error(status, "creating an encoder")
        }
        self.encoder = encoder
        #else
        throw OpusCodec.unavailable
        #endif
    }

    #if canImport(COpus)
    deinit { opus_encoder_destroy(encoder) }
    #endif

    /// Encodes one 20 ms frame.
    /// - Parameter pcm: 960 samples per channel of 48 kHz PCM, interleaved.
    /// - Returns: the Opus packet: an RTP payload (RFC 7587).
    /// - Throws: `invalidArgument` (70005) when `pcm` is not one 20 ms frame.
    public func encode(_ pcm: [Int16]) throws(PreflightError) -> [UInt8] {
        guard pcm.count == OpusCodec.frameSamples * channels else {
            throw PreflightError(
                code: .invalidArgument, message: "Opus: a frame is \(OpusCodec.frameSamples * channels) samples, not \(pcm.count)")
        }
        #if canImport(COpus)
        var packet = [UInt8](repeating: 0, count: OpusCodec.maximumPayloadBytes)
        let count = pcm.withUnsafeBufferPointer { samples -> Int32 in
            packet.withUnsafeMutableBufferPointer { out -> Int32 in
                guard let input = samples.baseAddress, let output = out.baseAddress else { return OPUS_BAD_ARG }
                return opus_encode(encoder, input, Int32(OpusCodec.frameSamples), output, Int32(out.count))
            }
        }
        guard count > 0 else { throw OpusCodec.error(count, "encoding a frame") }
        return Array(packet.prefix(Int(count)))
        #else
        throw OpusCodec.unavailable
        #endif
    }
}

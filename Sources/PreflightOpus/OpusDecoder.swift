#if canImport(COpus)
import COpus
#endif

/// An Opus decoder at 48 kHz. Payloads come from the network: their size is checked before
/// libopus sees them, and the output buffer holds the longest packet Opus allows (120 ms), so
/// a hostile payload gives a coded error or audio, never a write past the buffer. Used from one
/// thread at a time.
public final class OpusDecoder {
    /// Channels: 1 or 2.
    public let channels: Int
    #if canImport(COpus)
    private let decoder: OpaquePointer
    #endif

    /// Creates a decoder.
    /// - Parameter channels: 1 (default) or 2.
    /// - Throws: ``PreflightError`` `unsupportedCodec` (70103) when this build has no libopus,
    ///   `invalidArgument` (70005) for another channel count.
    public init(channels: Int = 1) throws(PreflightError) {
        try OpusCodec.checkChannels(channels)
        self.channels = channels
        #if canImport(COpus)
        var status: Int32 = 0
        guard let decoder = opus_decoder_create(Int32(OpusCodec.clockRate), Int32(channels), &status), status == OPUS_OK else {
            throw OpusCodec.error(status, "creating a decoder")
        }
        self.decoder = decoder
        #else
        throw OpusCodec.unavailable
        #endif
    }

    #if canImport(COpus)
    deinit { opus_decoder_destroy(decoder) }
    #endif

    /// Decodes one RTP payload; an empty one conceals a lost 20 ms frame (packet loss concealment).
    /// - Returns: 48 kHz PCM, interleaved, up to 120 ms.
    /// - Throws: `malformed` (70002) for a payload that is not an Opus packet or is larger than
    ///   ``OpusCodec/maximumPayloadBytes``.
    public func decode(_ payload: [UInt8]) throws(PreflightError) -> [Int16] {
        guard payload.count <= OpusCodec.maximumPayloadBytes else {
            throw PreflightError(code: .malformed, message: "Opus: a payload of \(payload.count) bytes, more than \(OpusCodec.maximumPayloadBytes)")
        }
        #if canImport(COpus)
        let capacity = OpusCodec.maximumDecodedSamples
        var pcm = [Int16](repeating: 0, count: capacity * channels)
        let samples = payload.withUnsafeBufferPointer { bytes -> Int32 in
            pcm.withUnsafeMutableBufferPointer { out -> Int32 in
                guard let output = out.baseAddress else { return OPUS_BAD_ARG }
                // A lost frame (no payload) is concealed over 20 ms.
                return opus_decode(
                    decoder, payload.isEmpty ? nil : bytes.baseAddress, Int32(payload.count), output,
                    Int32(payload.isEmpty ? OpusCodec.frameSamples : capacity), 0)
            }
        }
        guard samples >= 0 else { throw OpusCodec.error(samples, "decoding a payload of \(payload.count) bytes") }
        return Array(pcm.prefix(Int(samples) * channels))
        #else
        throw OpusCodec.unavailable
        #endif
    }
}

import Synchronization
#if canImport(COpus)
import COpus
#endif

/// An Opus decoder. Payloads come from the network: their size is checked before libopus sees
/// them, and the output buffer holds the longest packet Opus allows (120 ms), so a hostile
/// payload gives a coded error or audio, never a write past the buffer.
///
/// Any Opus stream decodes at any of the rates libopus offers (it resamples inside), so a call
/// whose audio path is 8 kHz decodes a fullband stream straight to 8 kHz. Calls are serialized
/// by a lock: a media session's receive path and its owner may share one.
public final class OpusDecoder: Sendable {
    /// Channels: 1 or 2.
    public let channels: Int
    /// The output's sample rate, Hz.
    public let sampleRate: Int
    #if canImport(COpus)
    private let decoder: Mutex<OpusHandle>
    #endif

    /// Creates a decoder.
    /// - Parameters:
    ///   - channels: 1 (default) or 2.
    ///   - sampleRate: the output rate: 8,000, 12,000, 16,000, 24,000 or 48,000 (default) Hz.
    /// - Throws: ``PreflightError`` `unsupportedCodec` (70103) when this build has no libopus,
    ///   `invalidArgument` (70005) for another channel count or rate.
    public init(channels: Int = 1, sampleRate: Int = OpusCodec.clockRate) throws(PreflightError) {
        try OpusCodec.checkChannels(channels)
        try OpusCodec.checkSampleRate(sampleRate)
        self.channels = channels
        self.sampleRate = sampleRate
        #if canImport(COpus)
        var status: Int32 = 0
        guard let decoder = opus_decoder_create(Int32(sampleRate), Int32(channels), &status), status == OPUS_OK else {
            throw OpusCodec.error(status, "creating a decoder")
        }
        self.decoder = Mutex(OpusHandle(pointer: decoder))
        #else
        throw OpusCodec.unavailable
        #endif
    }

    #if canImport(COpus)
    deinit { decoder.withLock { opus_decoder_destroy($0.pointer) } }
    #endif

    /// Samples of one 20 ms frame per channel at ``sampleRate``.
    public var frameSamples: Int { sampleRate / 50 }

    /// Decodes one RTP payload; an empty one conceals a lost 20 ms frame (packet loss concealment).
    /// - Returns: PCM at ``sampleRate``, interleaved, up to 120 ms.
    /// - Throws: `malformed` (70002) for a payload that is not an Opus packet or is larger than
    ///   ``OpusCodec/maximumPayloadBytes``.
    public func decode(_ payload: [UInt8]) throws(PreflightError) -> [Int16] {
        let result = payload.withUnsafeBytes { bytes in Result { () throws(PreflightError) in try decode(bytes) } }
        return try result.get()
    }

    /// Decodes one RTP payload in place (the media path's receive buffer); empty conceals a loss.
    public func decode(_ payload: UnsafeRawBufferPointer) throws(PreflightError) -> [Int16] {
        guard payload.count <= OpusCodec.maximumPayloadBytes else {
            throw PreflightError(code: .malformed, message: "Opus: a payload of \(payload.count) bytes, more than \(OpusCodec.maximumPayloadBytes)")
        }
        #if canImport(COpus)
        let capacity = sampleRate * 120 / 1000
        var pcm = [Int16](repeating: 0, count: capacity * channels)
        let frame = frameSamples
        let samples = decoder.withLock { handle -> Int32 in
            pcm.withUnsafeMutableBufferPointer { out -> Int32 in
                guard let output = out.baseAddress else { return OPUS_BAD_ARG }
                let input = payload.isEmpty ? nil : payload.bindMemory(to: UInt8.self).baseAddress
                // A lost frame (no payload) is concealed over 20 ms.
                return opus_decode(
                    handle.pointer, input, Int32(payload.count), output, Int32(payload.isEmpty ? frame : capacity), 0)
            }
        }
        guard samples >= 0 else { throw OpusCodec.error(samples, "decoding a payload of \(payload.count) bytes") }
        return Array(pcm.prefix(Int(samples) * channels))
        #else
        throw OpusCodec.unavailable
        #endif
    }
}

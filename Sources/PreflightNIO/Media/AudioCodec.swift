import PreflightCore

/// A voice codec as a ``MediaSession`` and its sources use it: 20 ms of 8 kHz mono PCM (the
/// audio path's rate, G.711's) become one RTP payload, and a payload becomes 8 kHz PCM again.
/// ``PCMUAudioCodec`` is built in; the SDK adds Opus over libopus.
///
/// The encoder and the decoder may keep state (Opus does): a session feeds the decoder the
/// packets it receives in sequence order, late ones left out, and conceals what is missing.
public protocol AudioCodec: Sendable {
    /// The payload format on the wire: name, payload type, RTP clock.
    var format: AudioPayloadFormat { get }
    /// One 20 ms frame (160 samples at 8 kHz) as a payload; `nil` when it cannot be encoded.
    func encode(_ pcm: [Int16]) -> [UInt8]?
    /// One received payload as 8 kHz PCM; `nil` for a payload that does not decode.
    func decode(_ payload: UnsafeRawBufferPointer) -> [Int16]?
    /// 20 ms in place of a lost frame (the codec's concealment); `nil` when the codec has none.
    func concealLoss() -> [Int16]?
}

extension AudioCodec {
    /// The RTP timestamp units of one 20 ms frame.
    public var frameTimestampIncrement: UInt32 { format.frameTimestampIncrement }
}

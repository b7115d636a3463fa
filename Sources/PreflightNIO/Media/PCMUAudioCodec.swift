import PreflightCore

/// G.711 μ-law (PCMU): one byte a sample, no state, nothing to conceal a loss with.
public struct PCMUAudioCodec: AudioCodec {
    /// PCMU: payload type 0, 8 kHz.
    public var format: AudioPayloadFormat { .pcmu }

    /// Creates the codec.
    public init() {}

    /// The frame in μ-law.
    public func encode(_ pcm: [Int16]) -> [UInt8]? { MuLaw.encode(pcm) }

    /// The payload's samples, decoded.
    public func decode(_ payload: UnsafeRawBufferPointer) -> [Int16]? { payload.map(MuLaw.decode) }

    /// `nil`: a lost PCMU frame is not played.
    public func concealLoss() -> [Int16]? { nil }
}

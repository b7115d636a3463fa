internal import PreflightCore
internal import PreflightNIO
internal import PreflightOpus

/// Opus in the media path (RFC 7587): the 8 kHz audio path's frames are raised to 48 kHz and
/// encoded as a fullband voice stream, as a calling app's would be, so the test carries an Opus
/// call's bitrate and packet sizes; what arrives is decoded straight to 8 kHz by libopus, which
/// also conceals lost frames.
final class OpusAudioCodec: AudioCodec {
    let encoder: OpusEncoder
    let decoder: OpusDecoder

    /// - Throws: 70103 when this build has no libopus.
    init() throws(PreflightError) {
        encoder = try OpusEncoder(sampleRate: OpusCodec.clockRate)
        decoder = try OpusDecoder(sampleRate: 8000)
    }

    var format: AudioPayloadFormat { .opus }

    func encode(_ pcm: [Int16]) -> [UInt8]? {
        let wideband = AudioResampler.resample(pcm, from: 8000, to: encoder.sampleRate)
        return try? encoder.encode(wideband)
    }

    func decode(_ payload: UnsafeRawBufferPointer) -> [Int16]? {
        // An empty payload would conceal a loss: a packet with nothing in it is not audio.
        guard !payload.isEmpty else { return nil }
        return try? decoder.decode(payload)
    }

    func concealLoss() -> [Int16]? {
        try? decoder.decode(UnsafeRawBufferPointer(start: nil, count: 0))
    }
}

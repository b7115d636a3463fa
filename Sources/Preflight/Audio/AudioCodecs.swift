internal import PreflightCore
internal import PreflightNIO
internal import PreflightOpus

/// The codecs a test or call offers and the one it runs with: the options' preferences, less
/// what this build cannot encode (Opus without libopus), and the codec of the edge's answer.
enum AudioCodecs {
    /// What to offer for `preferences` (``PreflightOptions/preferredAudioCodecs``): known names
    /// in their usual spelling, Opus left out when this build has no libopus, unknown names
    /// passed on as given (the edge skips what it does not speak).
    /// - Throws: 70103 when nothing is left, 70005 for an empty list.
    static func offer(_ preferences: [String]) throws(PreflightError) -> [String] {
        guard !preferences.isEmpty else {
            throw PreflightError(code: .invalidArgument, message: "preferredAudioCodecs is empty; offer PCMU, opus or both")
        }
        var offer: [String] = []
        for name in preferences {
            let format = AudioPayloadFormat.named(name)
            if format == .opus, !OpusCodec.isAvailable { continue }
            let spelled = format?.name ?? name
            if !offer.contains(spelled) { offer.append(spelled) }
        }
        guard !offer.isEmpty else {
            throw PreflightError(
                code: .unsupportedCodec,
                message: "none of the preferred codecs \(preferences) can be sent: this build has no Opus (install libopus-dev and rebuild) and PCMU was not offered")
        }
        return offer
    }

    /// The codec of the edge's answer, which must be one that was offered.
    /// - Throws: 70103 for a codec not offered, not known, or on an unexpected payload type.
    static func answered(codec: String, payloadType: UInt8, offered: [String]) throws(PreflightError) -> any AudioCodec {
        let format = try AudioPayloadFormat.answered(codec: codec, payloadType: payloadType)
        guard format.isOffered(in: offered) else {
            throw PreflightError(code: .unsupportedCodec, message: "answer: the edge chose \(format.name), which was not offered (\(offered))")
        }
        return try make(format)
    }

    /// An encoder and decoder for `format`.
    static func make(_ format: AudioPayloadFormat) throws(PreflightError) -> any AudioCodec {
        format == .opus ? try OpusAudioCodec() : PCMUAudioCodec()
    }
}

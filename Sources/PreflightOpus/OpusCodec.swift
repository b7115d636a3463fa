#if canImport(COpus)
import COpus
#endif

/// Opus (RFC 6716) as an RTP payload (RFC 7587): one Opus packet per RTP packet, a 48 kHz RTP
/// clock whatever the audio's bandwidth, a dynamic payload type. The encoder and decoder work on
/// 20 ms frames of 16-bit PCM at 48 kHz or one of libopus' lower rates.
public enum OpusCodec {
    /// The encoding name in codec lists and the answer ("opus", RFC 7587 §7).
    public static let encodingName = "opus"
    /// The RTP clock rate, Hz: 48,000 always (RFC 7587 §4.1).
    public static let clockRate = 48_000
    /// The dynamic payload type Preflight uses for it.
    public static let payloadType: UInt8 = 111
    /// Samples of one 20 ms frame per channel at 48 kHz.
    public static let frameSamples = 960
    /// The largest payload accepted: an Opus packet of 120 ms at the highest rate fits in 1,275
    /// bytes a frame; anything over 1,500 bytes (one Ethernet MTU) is refused before decoding.
    public static let maximumPayloadBytes = 1500
    /// The most samples one packet decodes to per channel (120 ms at 48 kHz).
    public static let maximumDecodedSamples = 5760

    /// Whether this build has libopus (libopus-dev was installed when it was built).
    public static var isAvailable: Bool {
        #if canImport(COpus)
        true
        #else
        false
        #endif
    }

    /// The sample rates libopus encodes from and decodes to, Hz.
    public static let sampleRates: Set<Int> = [8000, 12000, 16000, 24000, 48000]

    /// Encoders and decoders work at the rates libopus offers; others are 70005.
    static func checkSampleRate(_ rate: Int) throws(PreflightError) {
        guard sampleRates.contains(rate) else {
            throw PreflightError(code: .invalidArgument, message: "Opus: \(rate) Hz; 8000, 12000, 16000, 24000 or 48000 are allowed")
        }
    }

    /// Encoders and decoders take 1 or 2 channels; others are 70005.
    static func checkChannels(_ channels: Int) throws(PreflightError) {
        guard (1...2).contains(channels) else {
            throw PreflightError(code: .invalidArgument, message: "Opus: \(channels) channels; 1 or 2 are allowed")
        }
    }

    static var unavailable: PreflightError {
        PreflightError(code: .unsupportedCodec, message: "this build has no Opus: install libopus-dev (pkg-config opus) and rebuild")
    }

    #if canImport(COpus)
    /// A libopus error code as a Preflight error.
    static func error(_ code: Int32, _ what: String) -> PreflightError {
        let text = String(cString: opus_strerror(code))
        let mapped: PreflightError.Code = code == OPUS_INVALID_PACKET ? .malformed : .invalidArgument
        return PreflightError(code: mapped, message: "Opus: \(what): \(text)")
    }
    #endif
}

/// G.711 μ-law (PCMU, RTP payload type 0) sample conversion, ITU-T G.711 with the usual 14-bit
/// segment encoding (bias 0x84, clip 32635).
public enum MuLaw {
    /// The RTP payload type of PCMU (RFC 3551 §6).
    public static let payloadType: UInt8 = 0
    /// The RTP clock rate of PCMU, Hz.
    public static let clockRate = 8000

    @usableFromInline static let bias: Int32 = 0x84
    @usableFromInline static let clip: Int32 = 32635

    /// Encodes one 16-bit linear sample into a μ-law byte.
    @inlinable
    public static func encode(_ sample: Int16) -> UInt8 {
        encodeSample(Int32(sample))
    }

    @inlinable
    static func encodeSample(_ value: Int32) -> UInt8 {
        var magnitude = value
        var sign: UInt8 = 0
        if magnitude < 0 {
            magnitude = -magnitude
            sign = 0x80
        }
        magnitude = min(magnitude, clip) + bias
        // Segment: position of the highest set bit above bit 7 (0…7).
        var exponent: Int32 = 7
        var mask: Int32 = 0x4000
        while exponent > 0 && magnitude & mask == 0 {
            exponent -= 1
            mask >>= 1
        }
        let mantissa = (magnitude >> (exponent + 3)) & 0x0F
        return ~(sign | UInt8(exponent << 4) | UInt8(mantissa))
    }

    /// Decodes one μ-law byte into a 16-bit linear sample.
    @inlinable
    public static func decode(_ byte: UInt8) -> Int16 {
        let value = ~byte
        let sign = value & 0x80
        let exponent = Int32((value >> 4) & 0x07)
        let mantissa = Int32(value & 0x0F)
        let magnitude = ((mantissa << 3) + 0x84) << exponent - 0x84
        return Int16(sign != 0 ? -magnitude : magnitude)
    }

    /// Encodes 16-bit linear samples into μ-law bytes (inlinable: specialized where it is called,
    /// not a generic loop a frame).
    @inlinable
    public static func encode(_ samples: some Sequence<Int16>) -> [UInt8] {
        samples.map { encode($0) }
    }

    /// Decodes μ-law bytes into 16-bit linear samples.
    @inlinable
    public static func decode(_ bytes: some Sequence<UInt8>) -> [Int16] {
        bytes.map { decode($0) }
    }
}

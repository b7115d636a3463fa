/// The 4-byte header every RTCP packet starts with (RFC 3550 §6.4.1), and the padding it announces.
///
/// Internal: the public packet types carry the count, type and padding in their own fields.
@usableFromInline
struct RTCPHeader {
    /// The 5-bit count (report count, source count) or subtype.
    var count: UInt8
    /// The packet type (200 SR, 201 RR, 202 SDES, 203 BYE, …).
    var packetType: UInt8
    /// Padding bytes at the end, including the count byte; 0 when the P bit is clear.
    var paddingCount: UInt8
    /// The bytes after the header, without padding.
    var body: ArraySlice<UInt8>

    /// The size of the packet that starts `bytes`, from its length word (bytes).
    /// - Throws: `.truncated` when fewer than 4 bytes are left, `.malformed` for a version other than 2.
    static func packetSize(startOf bytes: ArraySlice<UInt8>) throws(PreflightError) -> Int {
        var reader = ByteReader(bytes, context: "RTCP")
        let first = try reader.readUInt8("first octet")
        let version = first >> 6
        guard version == 2 else {
            throw PreflightError(code: .malformed, message: "RTCP: version is \(version), expected 2")
        }
        try reader.skip(1, "packet type")
        let words = try reader.readUInt16("length")
        return 4 * (Int(words) + 1)
    }

    /// Splits `bytes`, which must hold exactly one packet.
    /// - Throws: `.truncated` when the length word asks for more bytes than there are,
    ///   `.malformed` for a version other than 2, bytes after the packet, or a bad padding count.
    static func parse(_ bytes: ArraySlice<UInt8>, context: StaticString) throws(PreflightError) -> RTCPHeader {
        let size = try packetSize(startOf: bytes)
        guard size <= bytes.count else {
            throw PreflightError(
                code: .truncated,
                message: "\(context): length word says \(size) bytes, only \(bytes.count) present"
            )
        }
        guard size == bytes.count else {
            throw PreflightError(
                code: .malformed,
                message: "\(context): length word says \(size) bytes, \(bytes.count - size) byte(s) follow the packet"
            )
        }
        let start = bytes.startIndex
        let first = bytes[start]
        var body = bytes[(start + 4)...]
        var paddingCount: UInt8 = 0
        if first & 0x20 != 0 {
            let count = body.last ?? 0
            guard count > 0, Int(count) <= body.count else {
                throw PreflightError(
                    code: .malformed,
                    message: "\(context): padding count \(count) is invalid with \(body.count) byte(s) after the header"
                )
            }
            paddingCount = count
            body = body.dropLast(Int(count))
        }
        return RTCPHeader(count: first & 0x1F, packetType: bytes[start + 1], paddingCount: paddingCount, body: body)
    }

    /// Checks the encodable limits and returns the length word for a packet with this body and padding.
    /// - Throws: `.invalidArgument` when the count does not fit in 5 bits, or the packet is not a whole
    ///   number of 32-bit words or longer than the length word can say.
    static func lengthWord(
        count: Int,
        bodyLength: Int,
        paddingCount: UInt8,
        context: StaticString
    ) throws(PreflightError) -> UInt16 {
        guard (0...31).contains(count) else {
            throw PreflightError(
                code: .invalidArgument, message: "\(context): count \(count) does not fit in 5 bits (0–31)")
        }
        let total = 4 + bodyLength + Int(paddingCount)
        guard total % 4 == 0 else {
            throw PreflightError(
                code: .invalidArgument,
                message: "\(context): packet would be \(total) bytes (padding \(paddingCount)), not a multiple of 4"
            )
        }
        let words = total / 4 - 1
        guard words <= Int(UInt16.max) else {
            throw PreflightError(
                code: .invalidArgument, message: "\(context): packet would be \(total) bytes, too long")
        }
        return UInt16(words)
    }

    /// Writes the header; the caller then writes the body and ``writePadding(_:to:)``.
    static func write(
        count: Int, packetType: UInt8, paddingCount: UInt8, lengthWord: UInt16, to writer: inout ByteWriter
    ) {
        var first: UInt8 = 2 << 6 | UInt8(truncatingIfNeeded: count & 0x1F)
        if paddingCount > 0 { first |= 0x20 }
        writer.write(first)
        writer.write(packetType)
        writer.write(lengthWord)
    }

    /// Writes `paddingCount` bytes of padding: zeros, then the count.
    static func writePadding(_ paddingCount: UInt8, to writer: inout ByteWriter) {
        guard paddingCount > 0 else { return }
        writer.writeZeros(Int(paddingCount) - 1)
        writer.write(paddingCount)
    }

    /// The error for a packet handed to the decoder of another type.
    static func wrongType(_ type: UInt8, expected: UInt8, context: StaticString) -> PreflightError {
        PreflightError(code: .malformed, message: "\(context): packet type is \(type), expected \(expected)")
    }
}

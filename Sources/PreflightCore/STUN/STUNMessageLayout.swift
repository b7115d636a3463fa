/// The validated layout of a STUN message, parsed in place: the header's fields as values and the
/// offsets of the attributes, so a receiver can check integrity and fingerprint and read the few
/// attributes it needs (USERNAME, PRIORITY, USE-CANDIDATE, …) straight from the datagram.
///
/// This is the receive hot path's decoder, as ``RTPHeader`` is for RTP: it reads raw memory
/// (for example a NIO `ByteBuffer`'s readable bytes) without copying or retaining anything.
/// ``STUNMessage/init(decoding:)-(ArraySlice<UInt8>)`` is built on it, so both apply the same
/// checks. Offsets count from the first byte of the message.
public struct STUNMessageLayout: Sendable, Hashable {
    /// The fixed header length, bytes.
    public static let headerLength = 20

    /// Method and class.
    public let type: STUNMessageType
    /// The transaction ID.
    public let transactionID: STUNTransactionID
    /// Header plus attributes, bytes.
    public let length: Int
    /// How many attributes the message carries (ignored ones included).
    public let attributeCount: Int
    /// Offset of the MESSAGE-INTEGRITY attribute header a receiver checks: the first one, when no
    /// MESSAGE-INTEGRITY-SHA256 precedes it.
    public let messageIntegrityOffset: Int?
    /// Offset of the first MESSAGE-INTEGRITY-SHA256 attribute header.
    public let messageIntegritySHA256Offset: Int?
    /// Offset of the FINGERPRINT attribute header (always the last attribute).
    public let fingerprintOffset: Int?
    /// The byte the sender padded attributes with (the first padding byte seen), `nil` if none was needed.
    public let paddingByte: UInt8?

    /// Parses and validates a STUN message that fills `bytes` exactly.
    ///
    /// - Throws: ``PreflightError`` `.truncated` when the input is shorter than the header, than
    ///   the header's length field, or than an attribute's length or padding; `.malformed` when the
    ///   two leading bits are not zero, the length is not a multiple of 4 or is shorter than the
    ///   input, the magic cookie is not 0x2112A442, an attribute follows FINGERPRINT, or an
    ///   attribute's value breaks its definition (``validateValue(type:value:in:)``: FINGERPRINT 4
    ///   bytes, MESSAGE-INTEGRITY 20, MESSAGE-INTEGRITY-SHA256 16–32 in steps of 4, addresses of
    ///   family 1 or 2 with 8 or 20 bytes, …).
    @inlinable
    public init(parsing bytes: UnsafeRawBufferPointer) throws(PreflightError) {
        guard bytes.count >= Self.headerLength else {
            throw PreflightError(
                code: .truncated, message: "STUN: message is \(bytes.count) byte(s), the header alone is 20")
        }
        let first = bytes[0]
        guard first & 0xC0 == 0 else {
            throw STUNAttribute.malformed("first two bits of the message must be zero, first byte is \(first)")
        }
        let length = Int(bytes[2]) << 8 | Int(bytes[3])
        guard length % 4 == 0 else {
            throw STUNAttribute.malformed("message length \(length) is not a multiple of 4")
        }
        let cookie = Self.uint32(bytes, at: 4)
        guard cookie == STUNAttribute.magicCookie else {
            throw STUNAttribute.malformed("magic cookie is 0x\(String(cookie, radix: 16)), expected 0x2112a442")
        }
        let available = bytes.count - Self.headerLength
        guard available >= length else {
            throw PreflightError(
                code: .truncated, message: "STUN: header says \(length) byte(s) of attributes, \(available) present")
        }
        guard available == length else {
            throw STUNAttribute.malformed("header says \(length) byte(s) of attributes but \(available) follow the header")
        }
        type = STUNMessageType(rawValue: UInt16(first) << 8 | UInt16(bytes[1]))
        transactionID = STUNTransactionID(
            high: Self.uint32(bytes, at: 8), low: UInt64(Self.uint32(bytes, at: 12)) << 32 | UInt64(Self.uint32(bytes, at: 16)))
        self.length = bytes.count
        // Locals until the walk is done: the layout is immutable once made, so offsets it hands to
        // the integrity and fingerprint checks are always ones this walk validated.
        var attributeCount = 0
        var messageIntegrityOffset: Int?
        var messageIntegritySHA256Offset: Int?
        var fingerprintOffset: Int?
        var paddingByte: UInt8?
        var offset = Self.headerLength
        let end = bytes.count
        while offset < end {
            if fingerprintOffset != nil {
                throw STUNAttribute.malformed("attribute at offset \(offset) follows FINGERPRINT, which must be last")
            }
            guard end - offset >= 4 else {
                throw PreflightError(
                    code: .truncated, message: "STUN: attribute header at offset \(offset) needs 4 bytes, \(end - offset) left")
            }
            let attributeType = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
            let valueLength = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let valueEnd = offset + 4 + valueLength
            guard valueEnd <= end else {
                throw PreflightError(
                    code: .truncated,
                    message: "STUN: attribute 0x\(String(attributeType, radix: 16)) at offset \(offset) has length "
                        + "\(valueLength), \(end - offset - 4) byte(s) left")
            }
            let pad = (4 - valueLength % 4) % 4
            guard end - valueEnd >= pad else {
                throw PreflightError(
                    code: .truncated,
                    message: "STUN: attribute 0x\(String(attributeType, radix: 16)) at offset \(offset) lacks its padding")
            }
            try Self.validateValue(type: attributeType, value: (offset + 4)..<valueEnd, in: bytes)
            if pad > 0, paddingByte == nil { paddingByte = bytes[valueEnd] }
            switch attributeType {
            case STUNAttributeType.messageIntegrity.rawValue:
                if messageIntegrityOffset == nil, messageIntegritySHA256Offset == nil { messageIntegrityOffset = offset }
            case STUNAttributeType.messageIntegritySHA256.rawValue:
                if messageIntegritySHA256Offset == nil { messageIntegritySHA256Offset = offset }
            case STUNAttributeType.fingerprint.rawValue:
                fingerprintOffset = offset
            default:
                break
            }
            attributeCount += 1
            offset = valueEnd + pad
        }
        self.attributeCount = attributeCount
        self.messageIntegrityOffset = messageIntegrityOffset
        self.messageIntegritySHA256Offset = messageIntegritySHA256Offset
        self.fingerprintOffset = fingerprintOffset
        self.paddingByte = paddingByte
    }

    /// Calls `body` with each attribute's type and value offsets, in order (ignored ones included).
    /// `bytes` must be the message this layout was parsed from.
    @inlinable
    public func forEachAttribute<E: Error>(
        in bytes: UnsafeRawBufferPointer, _ body: (_ type: UInt16, _ value: Range<Int>) throws(E) -> Void
    ) throws(E) {
        var offset = Self.headerLength
        while offset + 4 <= length {
            let valueLength = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            try body(UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1]), (offset + 4)..<(offset + 4 + valueLength))
            offset += 4 + (valueLength + 3) & ~3
        }
    }

    /// The value offsets of the first attribute of `type` that a receiver acts on (those after the
    /// integrity attributes are ignored, RFC 8489 §14.5); `nil` when there is none.
    @inlinable
    public func value(of type: STUNAttributeType, in bytes: UnsafeRawBufferPointer) -> Range<Int>? {
        let integrityEnd = messageIntegritySHA256Offset ?? messageIntegrityOffset ?? length
        var found: Range<Int>?
        forEachAttribute(in: bytes) { attributeType, value in
            guard found == nil, attributeType == type.rawValue else { return }
            let header = value.lowerBound - 4
            let counts =
                header < integrityEnd || header == messageIntegrityOffset || header == messageIntegritySHA256Offset
                || header == fingerprintOffset
            if counts { found = value }
        }
        return found
    }

    /// Whether the first attribute of `type` a receiver acts on holds exactly `expected` (e.g. the
    /// USERNAME an ICE agent expects in a check); `false` when there is none.
    @inlinable
    public func value(of type: STUNAttributeType, in bytes: UnsafeRawBufferPointer, equals expected: [UInt8]) -> Bool {
        guard let range = value(of: type, in: bytes), range.count == expected.count else { return false }
        return expected.withUnsafeBytes { Self.constantTimeEqual($0, UnsafeRawBufferPointer(rebasing: bytes[range])) }
    }

    @inlinable
    static func uint32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }
}

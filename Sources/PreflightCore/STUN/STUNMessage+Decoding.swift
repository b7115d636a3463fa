extension STUNMessage {
    /// The fixed STUN header length in bytes.
    @usableFromInline static let headerLength = 20

    /// Decodes a STUN message that fills `bytes` exactly (one UDP datagram, or one frame cut from a stream).
    ///
    /// Errors: ``PreflightError/Code/truncated`` when the input is shorter than the 20-byte header, than
    /// the header's length field, or than an attribute's length; ``PreflightError/Code/malformed`` when the
    /// two leading bits are not zero, the length is not a multiple of 4 or is shorter than the input, the
    /// magic cookie is not 0x2112A442, an attribute follows FINGERPRINT, or an attribute value is invalid
    /// (bad address family, wrong fixed size, invalid UTF-8, error code outside 300–699).
    @inlinable
    public init(decoding bytes: ArraySlice<UInt8>) throws(PreflightError) {
        let s = bytes.startIndex
        guard bytes.count >= Self.headerLength else {
            throw PreflightError(
                code: .truncated, message: "STUN: message is \(bytes.count) byte(s), the header alone is 20")
        }
        let first = bytes[s]
        guard first & 0xC0 == 0 else {
            throw STUNAttribute.malformed("first two bits of the message must be zero, first byte is \(first)")
        }
        let rawType = UInt16(first) << 8 | UInt16(bytes[s + 1])
        let length = Int(bytes[s + 2]) << 8 | Int(bytes[s + 3])
        guard length % 4 == 0 else {
            throw STUNAttribute.malformed("message length \(length) is not a multiple of 4")
        }
        let cookie = UInt32(bytes[s + 4]) << 24 | UInt32(bytes[s + 5]) << 16 | UInt32(bytes[s + 6]) << 8
            | UInt32(bytes[s + 7])
        guard cookie == STUNAttribute.magicCookie else {
            throw STUNAttribute.malformed("magic cookie is 0x\(String(cookie, radix: 16)), expected 0x2112a442")
        }
        let available = bytes.count - Self.headerLength
        guard available >= length else {
            throw PreflightError(
                code: .truncated,
                message: "STUN: header says \(length) byte(s) of attributes, \(available) present")
        }
        guard available == length else {
            throw STUNAttribute.malformed(
                "header says \(length) byte(s) of attributes but \(available) follow the header")
        }
        var high: UInt32 = 0
        for i in 8..<12 { high = high << 8 | UInt32(bytes[s + i]) }
        var low: UInt64 = 0
        for i in 12..<20 { low = low << 8 | UInt64(bytes[s + i]) }
        let transactionID = STUNTransactionID(high: high, low: low)

        var received = ReceivedBytes(bytes: bytes)
        var attributes = [STUNAttribute]()
        // Every attribute takes at least 4 bytes; typical ones take 8 or more: one allocation in the common case.
        attributes.reserveCapacity(Swift.min(length / 8 + 1, 32))
        var paddingByte: UInt8?
        var offset = s + Self.headerLength
        let end = bytes.endIndex
        while offset < end {
            if received.fingerprintOffset != nil {
                throw STUNAttribute.malformed("attribute at offset \(offset - s) follows FINGERPRINT, which must be last")
            }
            guard end - offset >= 4 else {
                throw PreflightError(
                    code: .truncated,
                    message: "STUN: attribute header at offset \(offset - s) needs 4 bytes, \(end - offset) left")
            }
            let type = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
            let valueLength = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let valueStart = offset + 4
            guard end - valueStart >= valueLength else {
                throw PreflightError(
                    code: .truncated,
                    message: "STUN: attribute 0x\(String(type, radix: 16)) at offset \(offset - s) has length "
                        + "\(valueLength), \(end - valueStart) byte(s) left")
            }
            let valueEnd = valueStart + valueLength
            let pad = (4 - valueLength % 4) % 4
            guard end - valueEnd >= pad else {
                throw PreflightError(
                    code: .truncated,
                    message: "STUN: attribute 0x\(String(type, radix: 16)) at offset \(offset - s) lacks its padding")
            }
            if pad > 0, paddingByte == nil { paddingByte = bytes[valueEnd] }
            switch type {
            case STUNAttributeType.messageIntegrity.rawValue:
                if received.integrityOffset == nil, received.integritySHA256Offset == nil {
                    received.integrityOffset = offset - s
                }
            case STUNAttributeType.messageIntegritySHA256.rawValue:
                if received.integritySHA256Offset == nil { received.integritySHA256Offset = offset - s }
            case STUNAttributeType.fingerprint.rawValue:
                received.fingerprintOffset = offset - s
            default:
                break
            }
            attributes.append(
                try STUNAttribute.decode(type: type, value: bytes[valueStart..<valueEnd], transactionID: transactionID))
            offset = valueEnd + pad
        }
        self.type = STUNMessageType(rawValue: rawType)
        self.transactionID = transactionID
        self.attributes = attributes
        self.padding = paddingByte ?? 0
        self.received = received
    }

    /// Decodes a STUN message that fills `bytes` exactly. See ``init(decoding:)-(ArraySlice<UInt8>)``.
    @inlinable
    public init(decoding bytes: [UInt8]) throws(PreflightError) {
        try self.init(decoding: bytes[...])
    }

    /// Whether `bytes` looks like a STUN message: at least 20 bytes, first two bits zero, magic cookie
    /// 0x2112A442 and a length field that is a multiple of 4 and matches the input. Does not decode attributes.
    @inlinable
    public static func looksLikeSTUN(_ bytes: ArraySlice<UInt8>) -> Bool {
        let s = bytes.startIndex
        guard bytes.count >= headerLength, bytes[s] & 0xC0 == 0 else { return false }
        let length = Int(bytes[s + 2]) << 8 | Int(bytes[s + 3])
        return length % 4 == 0 && length == bytes.count - headerLength && bytes[s + 4] == 0x21
            && bytes[s + 5] == 0x12 && bytes[s + 6] == 0xA4 && bytes[s + 7] == 0x42
    }
}

extension STUNMessage {
    /// The fixed STUN header length in bytes.
    @usableFromInline static let headerLength = STUNMessageLayout.headerLength

    /// Decodes a STUN message that fills `bytes` exactly (one UDP datagram, or one frame cut from a stream).
    ///
    /// The structure is checked by ``STUNMessageLayout/init(parsing:)``; then each attribute's value is
    /// decoded. Errors: ``PreflightError/Code/truncated`` when the input is shorter than the 20-byte
    /// header, than the header's length field, or than an attribute's length;
    /// ``PreflightError/Code/malformed`` when the two leading bits are not zero, the length is not a
    /// multiple of 4 or is shorter than the input, the magic cookie is not 0x2112A442, an attribute
    /// follows FINGERPRINT, or an attribute value is invalid (bad address family, wrong fixed size,
    /// invalid UTF-8, error code outside 300–699).
    @inlinable
    public init(decoding bytes: ArraySlice<UInt8>) throws(PreflightError) {
        let s = bytes.startIndex
        let (layout, attributes) = try bytes.withRawBytes { buffer throws(PreflightError) in
            let layout = try STUNMessageLayout(parsing: buffer)
            var attributes = [STUNAttribute]()
            attributes.reserveCapacity(layout.attributeCount)
            try layout.forEachAttribute(in: buffer) { type, value throws(PreflightError) in
                attributes.append(
                    try STUNAttribute.decode(
                        type: type, value: bytes[(s + value.lowerBound)..<(s + value.upperBound)],
                        transactionID: layout.transactionID))
            }
            return (layout, attributes)
        }
        self.type = layout.type
        self.transactionID = layout.transactionID
        self.attributes = attributes
        self.padding = layout.paddingByte ?? 0
        self.received = ReceivedBytes(bytes: bytes, layout: layout)
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

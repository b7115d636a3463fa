extension STUNMessageLayout {
    /// Checks the length (and, for addresses, the family) of one attribute value against its
    /// definition: the single place where both decoders learn that a value is safe to read.
    ///
    /// ``init(parsing:)`` calls it for every attribute, so the integrity and fingerprint checks and
    /// ``STUNMessage/init(decoding:)-(ArraySlice<UInt8>)`` can read fixed-size values without
    /// checking again. Attributes of variable length (USERNAME, REALM, DATA, …) and unknown ones
    /// pass; their contents are checked where they are decoded.
    ///
    /// - Parameters:
    ///   - type: the attribute type number.
    ///   - value: the value's offsets in `bytes` (padding excluded); already inside `bytes`.
    /// - Throws: ``PreflightError/Code/malformed`` naming the attribute, its length and the rule.
    @inlinable
    static func validateValue(
        type: UInt16, value: Range<Int>, in bytes: UnsafeRawBufferPointer
    ) throws(PreflightError) {
        let length = value.count
        func exactly(_ expected: Int, _ name: StaticString) throws(PreflightError) {
            guard length == expected else {
                throw STUNAttribute.malformed("\(name) value must be \(expected) bytes, got \(length)")
            }
        }
        switch STUNAttributeType(rawValue: type) {
        case .messageIntegrity: try exactly(20, "MESSAGE-INTEGRITY")
        case .fingerprint: try exactly(4, "FINGERPRINT")
        case .priority: try exactly(4, "PRIORITY")
        case .lifetime: try exactly(4, "LIFETIME")
        case .requestedTransport: try exactly(4, "REQUESTED-TRANSPORT")
        case .channelNumber: try exactly(4, "CHANNEL-NUMBER")
        case .useCandidate: try exactly(0, "USE-CANDIDATE")
        case .iceControlled: try exactly(8, "ICE-CONTROLLED")
        case .iceControlling: try exactly(8, "ICE-CONTROLLING")
        case .userhash: try exactly(32, "USERHASH")
        case .messageIntegritySHA256:
            // RFC 8489 §14.6: at least 16 bytes (128 bits of the HMAC), at most 32, multiple of 4.
            guard length >= 16, length <= 32, length % 4 == 0 else {
                throw STUNAttribute.malformed("MESSAGE-INTEGRITY-SHA256 value must be 16–32 bytes in steps of 4, got \(length)")
            }
        case .errorCode:
            guard length >= 4 else {
                throw STUNAttribute.malformed("ERROR-CODE value must be at least 4 bytes, got \(length)")
            }
        case .unknownAttributes:
            guard length % 2 == 0 else {
                throw STUNAttribute.malformed("UNKNOWN-ATTRIBUTES length \(length) is odd")
            }
        case .mappedAddress: try validateAddress(value, in: bytes, "MAPPED-ADDRESS")
        case .xorMappedAddress: try validateAddress(value, in: bytes, "XOR-MAPPED-ADDRESS")
        case .xorPeerAddress: try validateAddress(value, in: bytes, "XOR-PEER-ADDRESS")
        case .xorRelayedAddress: try validateAddress(value, in: bytes, "XOR-RELAYED-ADDRESS")
        case .alternateServer: try validateAddress(value, in: bytes, "ALTERNATE-SERVER")
        default: break
        }
    }

    /// An address value: a zero byte, the family (1 for IPv4, 2 for IPv6), the port, then 4 or 16
    /// address bytes (RFC 8489 §14.1).
    @inlinable
    static func validateAddress(
        _ value: Range<Int>, in bytes: UnsafeRawBufferPointer, _ name: StaticString
    ) throws(PreflightError) {
        guard value.count >= 2 else {
            throw STUNAttribute.malformed("\(name) value must be 8 or 20 bytes, got \(value.count)")
        }
        let familyByte = bytes[value.lowerBound + 1]
        guard let family = TransportAddress.Family(rawValue: familyByte) else {
            throw STUNAttribute.malformed("\(name) has address family \(familyByte), expected 1 (IPv4) or 2 (IPv6)")
        }
        guard value.count == 4 + family.addressLength else {
            throw STUNAttribute.malformed("\(name) value must be \(4 + family.addressLength) bytes for \(family), got \(value.count)")
        }
    }
}

extension STUNMessage {
    /// Calls `body` with each attribute a receiver acts on, in order, skipping those RFC 8489 §14.5/§14.6
    /// says to ignore (after MESSAGE-INTEGRITY, all but MESSAGE-INTEGRITY-SHA256 and FINGERPRINT; after
    /// MESSAGE-INTEGRITY-SHA256, all but FINGERPRINT). Stops when `body` returns a value.
    @inlinable
    func firstEffective<T>(_ body: (STUNAttribute) -> T?) -> T? {
        var afterIntegrity = false
        var afterSHA256 = false
        for attribute in attributes {
            switch attribute {
            case .fingerprint:
                break
            case .messageIntegritySHA256:
                if afterSHA256 { continue }
                afterSHA256 = true
            case .messageIntegrity:
                if afterIntegrity || afterSHA256 { continue }
                afterIntegrity = true
                if let value = body(attribute) { return value }
                continue
            default:
                if afterIntegrity || afterSHA256 { continue }
            }
            if let value = body(attribute) { return value }
        }
        return nil
    }

    /// Whether the attribute at `index` of ``attributes`` is one RFC 8489 §14.5/§14.6 says to ignore
    /// (it follows MESSAGE-INTEGRITY or MESSAGE-INTEGRITY-SHA256 and is not allowed to).
    public func isIgnoredAttribute(at index: Int) -> Bool {
        guard attributes.indices.contains(index) else { return false }
        var afterIntegrity = false
        var afterSHA256 = false
        for (i, attribute) in attributes.enumerated() {
            let ignored: Bool
            switch attribute {
            case .fingerprint: ignored = false
            case .messageIntegritySHA256: ignored = afterSHA256
            default: ignored = afterIntegrity || afterSHA256
            }
            if i == index { return ignored }
            if case .messageIntegrity = attribute { afterIntegrity = true }
            if case .messageIntegritySHA256 = attribute { afterSHA256 = true }
        }
        return false
    }

    /// The attributes that are present but ignored because they follow the integrity attributes.
    public var ignoredAttributes: [STUNAttribute] {
        attributes.indices.filter { isIgnoredAttribute(at: $0) }.map { attributes[$0] }
    }

    /// Types of comprehension-required attributes (type < 0x8000) this codec does not know, among those
    /// not ignored: a server answers a request carrying any with 420 Unknown Attribute.
    public var unknownComprehensionRequiredAttributes: [UInt16] {
        var types = [UInt16]()
        for (i, attribute) in attributes.enumerated() {
            if case .unknown(let type, _) = attribute, type < 0x8000, !isIgnoredAttribute(at: i) {
                types.append(type)
            }
        }
        return types
    }

    /// USERNAME, if present.
    @inlinable public var username: String? {
        firstEffective { if case .username(let v) = $0 { v } else { nil } }
    }
    /// REALM, if present.
    @inlinable public var realm: String? {
        firstEffective { if case .realm(let v) = $0 { v } else { nil } }
    }
    /// NONCE, if present.
    @inlinable public var nonce: String? {
        firstEffective { if case .nonce(let v) = $0 { v } else { nil } }
    }
    /// SOFTWARE, if present.
    @inlinable public var software: String? {
        firstEffective { if case .software(let v) = $0 { v } else { nil } }
    }
    /// ERROR-CODE, if present.
    @inlinable public var errorCode: STUNErrorCode? {
        firstEffective { if case .errorCode(let v) = $0 { v } else { nil } }
    }
    /// XOR-MAPPED-ADDRESS (already un-XORed), if present.
    @inlinable public var xorMappedAddress: TransportAddress? {
        firstEffective { if case .xorMappedAddress(let v) = $0 { v } else { nil } }
    }
    /// MAPPED-ADDRESS, if present.
    @inlinable public var mappedAddress: TransportAddress? {
        firstEffective { if case .mappedAddress(let v) = $0 { v } else { nil } }
    }
    /// The reflexive address: XOR-MAPPED-ADDRESS, else MAPPED-ADDRESS.
    @inlinable public var reflexiveAddress: TransportAddress? { xorMappedAddress ?? mappedAddress }
    /// XOR-RELAYED-ADDRESS, if present (the first one; an allocation may carry one per family).
    @inlinable public var xorRelayedAddress: TransportAddress? {
        firstEffective { if case .xorRelayedAddress(let v) = $0 { v } else { nil } }
    }
    /// XOR-PEER-ADDRESS, if present (the first one).
    @inlinable public var xorPeerAddress: TransportAddress? {
        firstEffective { if case .xorPeerAddress(let v) = $0 { v } else { nil } }
    }
    /// PRIORITY, if present.
    @inlinable public var priority: UInt32? {
        firstEffective { if case .priority(let v) = $0 { v } else { nil } }
    }
    /// ICE-CONTROLLING tiebreaker, if present.
    @inlinable public var iceControlling: UInt64? {
        firstEffective { if case .iceControlling(let v) = $0 { v } else { nil } }
    }
    /// ICE-CONTROLLED tiebreaker, if present.
    @inlinable public var iceControlled: UInt64? {
        firstEffective { if case .iceControlled(let v) = $0 { v } else { nil } }
    }
    /// Whether USE-CANDIDATE is present.
    @inlinable public var useCandidate: Bool {
        firstEffective { if case .useCandidate = $0 { true } else { nil } } ?? false
    }
    /// LIFETIME in seconds, if present.
    @inlinable public var lifetime: UInt32? {
        firstEffective { if case .lifetime(let v) = $0 { v } else { nil } }
    }
    /// DATA, if present.
    @inlinable public var data: ArraySlice<UInt8>? {
        firstEffective { if case .data(let v) = $0 { v } else { nil } }
    }
    /// CHANNEL-NUMBER, if present.
    @inlinable public var channelNumber: UInt16? {
        firstEffective { if case .channelNumber(let v) = $0 { v } else { nil } }
    }
    /// FINGERPRINT value, if present.
    @inlinable public var fingerprint: UInt32? {
        firstEffective { if case .fingerprint(let v) = $0 { v } else { nil } }
    }
}

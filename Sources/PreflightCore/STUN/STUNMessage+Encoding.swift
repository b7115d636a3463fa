import Crypto
// Only for the byte-buffer conformances (ContiguousBytes, DataProtocol) swift-crypto's API takes.
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension STUNMessage {
    /// Encodes the message.
    ///
    /// With an `integrityKey`, any MESSAGE-INTEGRITY, MESSAGE-INTEGRITY-SHA256 and FINGERPRINT in
    /// ``attributes`` are left out and a fresh MESSAGE-INTEGRITY (HMAC-SHA1, 20 bytes) or, with `useSHA256`,
    /// MESSAGE-INTEGRITY-SHA256 (32 bytes) is appended after the other attributes (RFC 8489 §14.5/§14.6).
    /// With `fingerprint`, any FINGERPRINT in ``attributes`` is left out and a fresh one is appended last
    /// (§14.7). Without either, every attribute is written as it is, so decoding and re-encoding reproduces
    /// a received message.
    ///
    /// - Parameters:
    ///   - integrityKey: the HMAC key: ``STUNCredentials/key()`` (short-term: the password; long-term:
    ///     MD5 or SHA-256 of "username:realm:password").
    ///   - useSHA256: write MESSAGE-INTEGRITY-SHA256 instead of MESSAGE-INTEGRITY.
    ///   - fingerprint: append FINGERPRINT.
    ///   - padding: the padding byte; ``padding`` when `nil`.
    /// - Throws: ``PreflightError/Code/invalidArgument`` when an attribute value or the whole message is
    ///   longer than its 16-bit length field can say (65535 bytes).
    @inlinable
    public func encoded(
        integrityKey: [UInt8]? = nil, useSHA256: Bool = false, fingerprint: Bool = false, padding: UInt8? = nil
    ) throws(PreflightError) -> [UInt8] {
        try encoded(key: integrityKey.map { STUNIntegrityKey($0) }, useSHA256: useSHA256, fingerprint: fingerprint, padding: padding)
    }

    /// Encodes the message with an integrity key prepared once (faster for many messages). See
    /// ``encoded(integrityKey:useSHA256:fingerprint:padding:)``.
    @inlinable
    public func encoded(
        integrityKey: STUNIntegrityKey, useSHA256: Bool = false, fingerprint: Bool = false, padding: UInt8? = nil
    ) throws(PreflightError) -> [UInt8] {
        try encoded(key: integrityKey, useSHA256: useSHA256, fingerprint: fingerprint, padding: padding)
    }

    @inlinable
    func encoded(
        key integrityKey: STUNIntegrityKey?, useSHA256: Bool, fingerprint: Bool, padding: UInt8?
    ) throws(PreflightError) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(Self.headerLength + 56 + attributes.count * 16)
        let rawType = type.rawValue
        out.append(UInt8(truncatingIfNeeded: rawType >> 8))
        out.append(UInt8(truncatingIfNeeded: rawType))
        out.append(0)
        out.append(0)
        out.append(0x21)
        out.append(0x12)
        out.append(0xA4)
        out.append(0x42)
        transactionID.appendBytes(to: &out)
        let padByte = padding ?? self.padding
        for attribute in attributes {
            switch attribute {
            case .messageIntegrity, .messageIntegritySHA256:
                if integrityKey != nil { continue }
            case .fingerprint:
                if integrityKey != nil || fingerprint { continue }
            default:
                break
            }
            try attribute.encode(into: &out, transactionID: transactionID, padding: padByte)
        }
        if let integrityKey {
            let macLength = useSHA256 ? 32 : 20
            let integrityStart = out.count
            // The HMAC covers the header with a length that ends at the integrity attribute.
            try Self.setLength(integrityStart - Self.headerLength + 4 + macLength, in: &out)
            let attributeType = useSHA256 ? STUNAttributeType.messageIntegritySHA256 : .messageIntegrity
            out.append(UInt8(truncatingIfNeeded: attributeType.rawValue >> 8))
            out.append(UInt8(truncatingIfNeeded: attributeType.rawValue))
            out.append(0)
            out.append(UInt8(macLength))
            // Compute the MAC into stack memory, then append: appending while the hashing closures
            // still see `out` made the array copy itself.
            var mac = SIMD32<UInt8>()
            out.withUnsafeBytes { message in
                let covered = UnsafeRawBufferPointer(rebasing: message[0..<integrityStart])
                withUnsafeMutableBytes(of: &mac) { macBytes in
                    if useSHA256 {
                        integrityKey.storage.sha256.authenticate({ $0.update(bufferPointer: covered) }) {
                            macBytes.copyMemory(from: $0)
                        }
                    } else {
                        integrityKey.storage.sha1.authenticate({ $0.update(bufferPointer: covered) }) {
                            macBytes.copyMemory(from: $0)
                        }
                    }
                }
            }
            withUnsafeBytes(of: &mac) { out.append(contentsOf: $0.prefix(macLength)) }
        }
        if fingerprint {
            // The CRC covers the header with a length that includes the FINGERPRINT itself.
            try Self.setLength(out.count - Self.headerLength + 8, in: &out)
            let crc = CRC32.checksum(out[...]) ^ STUNMessageLayout.fingerprintXOR
            out.append(0x80)
            out.append(0x28)
            out.append(0)
            out.append(4)
            out.append(UInt8(truncatingIfNeeded: crc >> 24))
            out.append(UInt8(truncatingIfNeeded: crc >> 16))
            out.append(UInt8(truncatingIfNeeded: crc >> 8))
            out.append(UInt8(truncatingIfNeeded: crc))
        } else {
            try Self.setLength(out.count - Self.headerLength, in: &out)
        }
        return out
    }

    /// Encodes the message protected with `credentials` (MESSAGE-INTEGRITY, or MESSAGE-INTEGRITY-SHA256
    /// with `useSHA256`), optionally with FINGERPRINT. See ``encoded(integrityKey:useSHA256:fingerprint:padding:)``.
    public func encoded(
        credentials: STUNCredentials, useSHA256: Bool = false, fingerprint: Bool = false
    ) throws(PreflightError) -> [UInt8] {
        try encoded(integrityKey: credentials.key(), useSHA256: useSHA256, fingerprint: fingerprint)
    }

    @inlinable
    static func setLength(_ length: Int, in out: inout [UInt8]) throws(PreflightError) {
        guard length <= 0xFFFF else {
            throw PreflightError(
                code: .invalidArgument, message: "STUN: message body is \(length) bytes, at most 65535 fit")
        }
        out[2] = UInt8(truncatingIfNeeded: length >> 8)
        out[3] = UInt8(truncatingIfNeeded: length)
    }
}

import Crypto
// Only for the byte-buffer conformances (ContiguousBytes, DataProtocol) swift-crypto's API takes.
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension STUNMessage {
    /// Checks the message's MESSAGE-INTEGRITY-SHA256 (when present) or MESSAGE-INTEGRITY against `key`
    /// (RFC 8489 §14.5, §14.6), over the bytes the message was decoded from; a message built locally is
    /// encoded as it is first. The comparison runs in constant time.
    ///
    /// - Parameter key: the HMAC key, see ``STUNCredentials/key()``.
    /// - Throws: ``PreflightError/Code/integrityCheckFailed`` when the HMAC differs or the message carries
    ///   no integrity attribute.
    @inlinable
    public func verifyIntegrity(key: [UInt8]) throws(PreflightError) {
        try verifyIntegrity(key: STUNIntegrityKey(key))
    }

    /// Checks the integrity with a key prepared once (faster for many messages). See ``verifyIntegrity(key:)``.
    @inlinable
    public func verifyIntegrity(key: STUNIntegrityKey) throws(PreflightError) {
        guard let received else {
            try asReceived(failing: .integrityCheckFailed).verifyIntegrity(key: key)
            return
        }
        let bytes = received.bytes
        let s = bytes.startIndex
        if let offset = received.integritySHA256Offset {
            let valueLength = Int(bytes[s + offset + 2]) << 8 | Int(bytes[s + offset + 3])
            let value = bytes[(s + offset + 4)..<(s + offset + 4 + valueLength)]
            let ok = key.storage.sha256.authenticate({ Self.updateAdjusted(&$0, bytes[s..<(s + offset)], length: offset + 4 + valueLength) }) {
                Self.constantTimeEqual(UnsafeRawBufferPointer(rebasing: $0[0..<valueLength]), value)
            }
            guard ok else {
                throw PreflightError(code: .integrityCheckFailed, message: "STUN: MESSAGE-INTEGRITY-SHA256 does not match")
            }
        } else if let offset = received.integrityOffset {
            let value = bytes[(s + offset + 4)..<(s + offset + 24)]
            let ok = key.storage.sha1.authenticate({ Self.updateAdjusted(&$0, bytes[s..<(s + offset)], length: offset + 24) }) {
                Self.constantTimeEqual($0, value)
            }
            guard ok else {
                throw PreflightError(code: .integrityCheckFailed, message: "STUN: MESSAGE-INTEGRITY does not match")
            }
        } else {
            throw PreflightError(
                code: .integrityCheckFailed,
                message: "STUN: message has no MESSAGE-INTEGRITY or MESSAGE-INTEGRITY-SHA256 attribute")
        }
    }

    /// Checks the integrity with the key of `credentials`. See ``verifyIntegrity(key:)``.
    public func verifyIntegrity(credentials: STUNCredentials) throws(PreflightError) {
        try verifyIntegrity(key: credentials.key())
    }

    /// Checks the FINGERPRINT attribute (RFC 8489 §14.7): CRC-32 of everything before it, XOR 0x5354554E.
    ///
    /// - Throws: ``PreflightError/Code/fingerprintMismatch`` when it differs or the message has no FINGERPRINT.
    @inlinable
    public func verifyFingerprint() throws(PreflightError) {
        guard let received else {
            try asReceived(failing: .fingerprintMismatch).verifyFingerprint()
            return
        }
        guard let offset = received.fingerprintOffset else {
            throw PreflightError(code: .fingerprintMismatch, message: "STUN: message has no FINGERPRINT attribute")
        }
        let bytes = received.bytes
        let s = bytes.startIndex
        let expected = CRC32.checksum(bytes[s..<(s + offset)]) ^ Self.fingerprintXOR
        var actual: UInt32 = 0
        for i in 4..<8 { actual = actual << 8 | UInt32(bytes[s + offset + i]) }
        guard expected == actual else {
            throw PreflightError(
                code: .fingerprintMismatch,
                message: "STUN: FINGERPRINT is 0x\(String(actual, radix: 16)), message gives 0x\(String(expected, radix: 16))")
        }
    }

    /// A message built in code, encoded and decoded again so that its integrity and fingerprint can
    /// be checked like a received one's.
    /// - Parameter code: the error code to report when the message cannot be encoded.
    @inlinable
    func asReceived(failing code: PreflightError.Code) throws(PreflightError) -> STUNMessage {
        let bytes: [UInt8]
        do {
            bytes = try encoded()
        } catch {
            throw PreflightError(code: code, message: "STUN: message cannot be encoded to verify it", underlying: error)
        }
        return try STUNMessage(decoding: bytes)
    }

    /// Feeds `prefix` (header and the attributes before the integrity attribute) to `hmac`, with the
    /// header's length field replaced by `length` - 20 as RFC 8489 §14.5 requires.
    @inlinable
    static func updateAdjusted<H: IncrementalHash>(_ hasher: inout H, _ prefix: ArraySlice<UInt8>, length: Int) {
        let body = UInt16(truncatingIfNeeded: length - headerLength)
        let s = prefix.startIndex
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4) { header in
            header[0] = prefix[s]
            header[1] = prefix[s + 1]
            header[2] = UInt8(truncatingIfNeeded: body >> 8)
            header[3] = UInt8(truncatingIfNeeded: body)
            hasher.update(bufferPointer: UnsafeRawBufferPointer(header))
        }
        prefix.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[4...])) }
    }

    /// Compares in time that depends only on the length, not on where the bytes differ.
    @inlinable
    static func constantTimeEqual(_ lhs: UnsafeRawBufferPointer, _ rhs: ArraySlice<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        var j = rhs.startIndex
        for byte in lhs {
            difference |= byte ^ rhs[j]
            j += 1
        }
        return difference == 0
    }
}

extension STUNMessageLayout {
    /// The FINGERPRINT's XOR constant (RFC 8489 §14.7).
    @usableFromInline static let fingerprintXOR: UInt32 = 0x5354_554E

    /// Checks MESSAGE-INTEGRITY-SHA256 (when present) or MESSAGE-INTEGRITY against `key` (RFC 8489
    /// §14.5, §14.6) over `bytes`, the message this layout was parsed from; constant-time compare.
    /// - Throws: ``PreflightError/Code/integrityCheckFailed`` when the HMAC differs or the message
    ///   carries no integrity attribute.
    @inlinable
    public func verifyIntegrity(key: STUNIntegrityKey, in bytes: UnsafeRawBufferPointer) throws(PreflightError) {
        // The layout validated these lengths; checked again so that integrity is only ever accepted
        // at a full, validated length, whatever the bytes passed in.
        guard bytes.count == length else {
            throw PreflightError(
                code: .integrityCheckFailed, message: "STUN: \(bytes.count) bytes given for a message of \(length)")
        }
        if let offset = messageIntegritySHA256Offset {
            let valueLength = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard valueLength >= 16, valueLength <= 32, valueLength % 4 == 0, offset + 4 + valueLength <= length else {
                throw PreflightError(
                    code: .integrityCheckFailed, message: "STUN: MESSAGE-INTEGRITY-SHA256 of \(valueLength) bytes refused")
            }
            let value = UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(offset + 4 + valueLength)])
            let ok = key.storage.sha256.authenticate({ Self.updateAdjusted(&$0, bytes, prefix: offset, length: offset + 4 + valueLength) }) {
                Self.constantTimeEqual(UnsafeRawBufferPointer(rebasing: $0.prefix(valueLength)), value)
            }
            guard ok else {
                throw PreflightError(code: .integrityCheckFailed, message: "STUN: MESSAGE-INTEGRITY-SHA256 does not match")
            }
        } else if let offset = messageIntegrityOffset {
            let valueLength = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard valueLength == 20, offset + 24 <= length else {
                throw PreflightError(
                    code: .integrityCheckFailed, message: "STUN: MESSAGE-INTEGRITY of \(valueLength) bytes refused")
            }
            let value = UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(offset + 24)])
            let ok = key.storage.sha1.authenticate({ Self.updateAdjusted(&$0, bytes, prefix: offset, length: offset + 24) }) {
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

    /// Checks the FINGERPRINT (RFC 8489 §14.7: CRC-32 of everything before it, XOR 0x5354554E) over
    /// `bytes`, the message this layout was parsed from.
    /// - Throws: ``PreflightError/Code/fingerprintMismatch`` when it differs or is missing.
    @inlinable
    public func verifyFingerprint(in bytes: UnsafeRawBufferPointer) throws(PreflightError) {
        guard let offset = fingerprintOffset else {
            throw PreflightError(code: .fingerprintMismatch, message: "STUN: message has no FINGERPRINT attribute")
        }
        guard bytes.count == length, offset + 8 == length, Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]) == 4 else {
            throw PreflightError(code: .fingerprintMismatch, message: "STUN: FINGERPRINT is not a 4-byte last attribute")
        }
        let expected = CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<offset])) ^ Self.fingerprintXOR
        let actual = Self.uint32(bytes, at: offset + 4)
        guard expected == actual else {
            throw PreflightError(
                code: .fingerprintMismatch,
                message: "STUN: FINGERPRINT is 0x\(String(actual, radix: 16)), message gives 0x\(String(expected, radix: 16))")
        }
    }

    /// Feeds the first `prefix` bytes (header and the attributes before the integrity attribute) to
    /// `hasher`, with the header's length field replaced by `length` − 20 as RFC 8489 §14.5 requires.
    @inlinable
    static func updateAdjusted<H: IncrementalHash>(
        _ hasher: inout H, _ bytes: UnsafeRawBufferPointer, prefix: Int, length: Int
    ) {
        let body = UInt16(truncatingIfNeeded: length - headerLength)
        var header = (bytes[0], bytes[1], UInt8(truncatingIfNeeded: body >> 8), UInt8(truncatingIfNeeded: body))
        withUnsafeBytes(of: &header) { hasher.update(bufferPointer: $0) }
        hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: bytes[4..<prefix]))
    }

    /// Compares in time that depends only on the length, not on where the bytes differ.
    @inlinable
    static func constantTimeEqual(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<lhs.count { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}

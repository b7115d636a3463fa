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
        let layout = received.layout
        try received.bytes.withRawBytes { bytes throws(PreflightError) in try layout.verifyIntegrity(key: key, in: bytes) }
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
        let layout = received.layout
        try received.bytes.withRawBytes { bytes throws(PreflightError) in try layout.verifyFingerprint(in: bytes) }
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
}

extension SRTPContext {
    /// The largest SRTCP index: it is 31 bits (RFC 3711 §3.4).
    static let maximumRTCPIndex: UInt32 = 0x7FFF_FFFF
    /// The E flag of the word after the tag: set when the packet is encrypted.
    static let encryptedFlag: UInt32 = 0x8000_0000
    /// The clear part of an SRTCP packet: the first 8 bytes of the first RTCP header (RFC 7714 §9.3).
    static let rtcpClearLength = 8

    /// Protects an RTCP (compound) packet (RFC 7714 §9, §17; RFC 3711 §3.4): the first 8 bytes
    /// stay in the clear and are authenticated with the E flag ‖ SRTCP index word; the rest is
    /// encrypted; the tag and that word follow (GCM), or that word and the tag (HMAC-SHA1-80).
    /// Each SSRC's index starts at 0 and grows by one per packet.
    /// - Returns: the SRTCP packet, the profile's ``SRTPProfile/rtcpOverhead`` bytes longer than `packet`.
    /// - Throws: ``PreflightError`` `.truncated` for fewer than 8 bytes, `.malformed` for an RTCP
    ///   version other than 2; `.srtpStreamLimitReached` for a stream beyond ``maximumStreamCount``
    ///   or past SRTCP index 2^31 − 1.
    public mutating func protectRTCP(_ packet: [UInt8]) throws(PreflightError) -> [UInt8] {
        try Self.checkRTCPHeader(packet, minimum: Self.rtcpClearLength)
        let ssrc = Self.rtcpSSRC(packet)
        var stream = sentRTCP[ssrc] ?? RTCPSendStream()
        guard sentRTCP[ssrc] != nil || sentRTCP.count < Self.maximumStreamCount else {
            throw Self.tooManyStreams("SRTCP", ssrc: ssrc)
        }
        let index = stream.nextIndex
        guard index <= Self.maximumRTCPIndex else {
            throw PreflightError(code: .srtpStreamLimitReached, message: "SRTCP: SSRC \(ssrc) used every index; the stream needs a new key")
        }
        let word = Self.encryptedFlag | index
        stream.nextIndex = index &+ 1
        if let rtcpAuthenticationKey {
            // RFC 3711 §3.4: clear part, encrypted part, E ‖ index, then the tag over all three.
            var output = packet + Self.bigEndian(word)
            try Self.applyKeyStream(
                &output, Self.rtcpClearLength..<packet.count, key: rtcpKey,
                iv: Self.counterModeIV(ssrc: ssrc, index: UInt64(index), salt: rtcpSalt), context: "SRTCP")
            output += output.withUnsafeBytes {
                Self.counterModeTag(key: rtcpAuthenticationKey, $0, trailer: nil, length: profile.tagLength)
            }
            sentRTCP[ssrc] = stream
            return output
        }
        let aad = Array(packet[0..<Self.rtcpClearLength]) + Self.bigEndian(word)
        let iv = Self.rtcpInitializationVector(ssrc: ssrc, index: index, salt: rtcpSalt)
        let sealed = try Self.seal(packet[Self.rtcpClearLength...], key: rtcpKey, iv: iv, aad: aad, context: "SRTCP")
        sentRTCP[ssrc] = stream
        return Array(packet[0..<Self.rtcpClearLength]) + sealed + Self.bigEndian(word)
    }

    /// Checks and decrypts an SRTCP packet (RFC 7714 §9, §17): reads the E flag and index from
    /// the last 4 bytes, refuses replays, authenticates, and only then records the index. A packet
    /// with the E flag clear is authenticated only (§17.3): its body is returned as it came.
    /// - Returns: the RTCP packet, the profile's ``SRTPProfile/rtcpOverhead`` bytes shorter than `packet`.
    /// - Throws: ``PreflightError`` `.truncated` for fewer than 8 bytes and the overhead, `.malformed` for an RTCP
    ///   version other than 2; `.srtpReplayed` for an index already received or older than the
    ///   window; `.srtpAuthenticationFailed` when the tag does not match;
    ///   `.srtpStreamLimitReached` for a new stream beyond ``maximumStreamCount``.
    public mutating func unprotectRTCP(_ packet: [UInt8]) throws(PreflightError) -> [UInt8] {
        try Self.checkRTCPHeader(packet, minimum: Self.rtcpClearLength &+ profile.rtcpOverhead)
        let ssrc = Self.rtcpSSRC(packet)
        // GCM (RFC 7714 §9) ends with the word, after the tag; RFC 3711 §3.4 with the tag.
        let counterMode = rtcpAuthenticationKey != nil
        let wordStart = packet.count &- 4 &- (counterMode ? profile.tagLength : 0)
        let word = UInt32(packet[wordStart]) << 24 | UInt32(packet[wordStart &+ 1]) << 16
            | UInt32(packet[wordStart &+ 2]) << 8 | UInt32(packet[wordStart &+ 3])
        let index = word & Self.maximumRTCPIndex
        var window = receivedRTCP[ssrc] ?? SRTPReplayWindow()
        guard receivedRTCP[ssrc] != nil || receivedRTCP.count < Self.maximumStreamCount else {
            throw Self.tooManyStreams("SRTCP", ssrc: ssrc)
        }
        if let refusal = window.refusal(of: UInt64(index)) {
            throw PreflightError(code: .srtpReplayed, message: "SRTCP: SSRC \(ssrc): \(refusal)")
        }
        if let rtcpAuthenticationKey {
            let tagStart = wordStart &+ 4
            let expected = packet.withUnsafeBytes {
                Self.counterModeTag(key: rtcpAuthenticationKey, UnsafeRawBufferPointer(rebasing: $0[..<tagStart]), trailer: nil, length: profile.tagLength)
            }
            guard packet.withUnsafeBytes({ Self.tagsMatch(UnsafeRawBufferPointer(rebasing: $0[tagStart...]), expected) }) else {
                throw Self.authenticationFailed("SRTCP")
            }
            var output = Array(packet[..<wordStart])
            if word & Self.encryptedFlag != 0 {
                try Self.applyKeyStream(
                    &output, Self.rtcpClearLength..<output.count, key: rtcpKey,
                    iv: Self.counterModeIV(ssrc: ssrc, index: UInt64(index), salt: rtcpSalt), context: "SRTCP")
            }
            window.accept(UInt64(index))
            receivedRTCP[ssrc] = window
            return output
        }
        let iv = Self.rtcpInitializationVector(ssrc: ssrc, index: index, salt: rtcpSalt)
        let tagStart = wordStart &- profile.tagLength
        let body: [UInt8]
        if word & Self.encryptedFlag != 0 {
            let aad = Array(packet[0..<Self.rtcpClearLength]) + packet[wordStart...]
            body = try Self.open(packet[Self.rtcpClearLength..<wordStart], key: rtcpKey, iv: iv, aad: aad, context: "SRTCP")
        } else {
            // Authentication only: the whole packet and the word are the associated data, nothing is encrypted.
            let aad = Array(packet[0..<tagStart]) + packet[wordStart...]
            _ = try Self.open(packet[tagStart..<wordStart], key: rtcpKey, iv: iv, aad: aad, context: "SRTCP")
            body = Array(packet[Self.rtcpClearLength..<tagStart])
        }
        window.accept(UInt64(index))
        receivedRTCP[ssrc] = window
        return Array(packet[0..<Self.rtcpClearLength]) + body
    }

    /// (0x0000 ‖ SSRC ‖ 0x0000 ‖ 0 ‖ SRTCP index) XOR salt (RFC 7714 §9.1).
    static func rtcpInitializationVector(ssrc: UInt32, index: UInt32, salt: [UInt8]) -> [UInt8] {
        var fields = [UInt8](repeating: 0, count: 12)
        fields.replaceSubrange(2..<6, with: bigEndian(ssrc))
        fields.replaceSubrange(8..<12, with: bigEndian(index & maximumRTCPIndex))
        return initializationVector(fields, salt: salt)
    }

    static func checkRTCPHeader(_ packet: [UInt8], minimum: Int) throws(PreflightError) {
        guard packet.count >= minimum else {
            throw PreflightError(code: .truncated, message: "SRTCP: truncated packet: need \(minimum) byte(s), \(packet.count) present")
        }
        guard packet[0] >> 6 == 2 else {
            throw PreflightError(code: .malformed, message: "SRTCP: version is \(packet[0] >> 6), expected 2")
        }
    }

    /// The sender SSRC of the first RTCP packet (bytes 4–7).
    static func rtcpSSRC(_ packet: [UInt8]) -> UInt32 {
        UInt32(packet[4]) << 24 | UInt32(packet[5]) << 16 | UInt32(packet[6]) << 8 | UInt32(packet[7])
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
         UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
}

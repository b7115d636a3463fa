extension SRTPContext {
    /// Protects an RTP packet (RFC 7714 §8): the header (CSRCs and header extension included)
    /// stays in the clear and is authenticated; payload and padding are encrypted; the 16-byte
    /// tag follows. The rollover counter advances when the sequence number wraps.
    /// - Returns: the SRTP packet, ``rtpOverhead`` bytes longer than `packet`.
    /// - Throws: ``PreflightError`` `.truncated`/`.malformed` when `packet` is not RTP;
    ///   `.invalidArgument` when its index was already protected (it would reuse a GCM nonce) or
    ///   is older than the replay window; `.srtpStreamLimitReached` for a stream beyond
    ///   ``maximumStreamCount`` or past the last index (2^48 − 1).
    public mutating func protectRTP(_ packet: [UInt8]) throws(PreflightError) -> [UInt8] {
        let header = try packet[...].withRawBytes { bytes throws(PreflightError) in try RTPHeader(parsing: bytes) }
        let headerLength = header.extensionRange.upperBound
        let ssrc = header.ssrc
        var stream = sentRTP[ssrc] ?? RTPStream()
        guard sentRTP[ssrc] != nil || sentRTP.count < Self.maximumStreamCount else {
            throw Self.tooManyStreams("SRTP", ssrc: ssrc)
        }
        let index = try Self.estimateIndex(header.sequenceNumber, highest: stream.window.highest, context: "SRTP")
        if let refusal = stream.window.refusal(of: index) {
            throw PreflightError(code: .invalidArgument, message: "SRTP: cannot protect: \(refusal) (a GCM nonce is never reused)")
        }
        let iv = Self.rtpInitializationVector(ssrc: ssrc, index: index, salt: rtpSalt)
        let aad = Array(packet[0..<headerLength])
        let sealed = try Self.seal(packet[headerLength...], key: rtpKey, iv: iv, aad: aad, context: "SRTP")
        stream.window.accept(index)
        sentRTP[ssrc] = stream
        return aad + sealed
    }

    /// Checks and decrypts an SRTP packet (RFC 7714 §8): estimates its index from the sequence
    /// number (RFC 3711 Appendix A), refuses replays, authenticates header and payload, and only
    /// then records the index.
    /// - Returns: the RTP packet, ``rtpOverhead`` bytes shorter than `packet`.
    /// - Throws: ``PreflightError`` `.truncated`/`.malformed` when the header is cut short or not
    ///   RTP version 2, or no tag follows it; `.srtpReplayed` for a packet already received or
    ///   older than the window; `.srtpAuthenticationFailed` when the tag does not match;
    ///   `.srtpStreamLimitReached` for a new stream beyond ``maximumStreamCount``.
    public mutating func unprotectRTP(_ packet: [UInt8]) throws(PreflightError) -> [UInt8] {
        let headerLength = try Self.rtpHeaderLength(packet)
        guard packet.count &- headerLength >= Self.rtpOverhead else {
            throw PreflightError(
                code: .truncated,
                message: "SRTP: truncated packet: need \(Self.rtpOverhead) tag byte(s) after the \(headerLength)-byte header, \(packet.count - headerLength) left")
        }
        let ssrc = UInt32(packet[8]) << 24 | UInt32(packet[9]) << 16 | UInt32(packet[10]) << 8 | UInt32(packet[11])
        let sequenceNumber = UInt16(packet[2]) << 8 | UInt16(packet[3])
        var stream = receivedRTP[ssrc] ?? RTPStream()
        guard receivedRTP[ssrc] != nil || receivedRTP.count < Self.maximumStreamCount else {
            throw Self.tooManyStreams("SRTP", ssrc: ssrc)
        }
        let index = try Self.estimateIndex(sequenceNumber, highest: stream.window.highest, context: "SRTP")
        if let refusal = stream.window.refusal(of: index) {
            throw PreflightError(code: .srtpReplayed, message: "SRTP: SSRC \(ssrc): \(refusal)")
        }
        let iv = Self.rtpInitializationVector(ssrc: ssrc, index: index, salt: rtpSalt)
        let aad = Array(packet[0..<headerLength])
        let plaintext = try Self.open(packet[headerLength...], key: rtpKey, iv: iv, aad: aad, context: "SRTP")
        stream.window.accept(index)
        receivedRTP[ssrc] = stream
        return aad + plaintext
    }

    /// The packet index of RFC 3711 §3.3.1 (ROC ‖ SEQ, 48 bits) that `sequenceNumber` most likely
    /// has, given the highest index so far: the candidate with ROC − 1, ROC or ROC + 1 closest to
    /// it (Appendix A). The first packet of a stream has ROC 0.
    /// - Throws: `.srtpStreamLimitReached` when the ROC would pass 2^32 − 1.
    static func estimateIndex(_ sequenceNumber: UInt16, highest: UInt64?, context: StaticString) throws(PreflightError) -> UInt64 {
        guard let highest else { return UInt64(sequenceNumber) }
        let highestSequence = UInt16(truncatingIfNeeded: highest)
        var rollover = highest >> 16
        if highestSequence < 0x8000 {
            if sequenceNumber > highestSequence, sequenceNumber - highestSequence > 0x8000, rollover > 0 { rollover -= 1 }
        } else if highestSequence - 0x8000 > sequenceNumber {
            rollover += 1
        }
        guard rollover <= UInt64(UInt32.max) else {
            throw PreflightError(code: .srtpStreamLimitReached, message: "\(context): the rollover counter is exhausted; the stream needs a new key")
        }
        return rollover << 16 | UInt64(sequenceNumber)
    }

    /// (0x0000 ‖ SSRC ‖ ROC ‖ SEQ) XOR salt (RFC 7714 §8.1).
    static func rtpInitializationVector(ssrc: UInt32, index: UInt64, salt: [UInt8]) -> [UInt8] {
        var fields = [UInt8](repeating: 0, count: 12)
        for byte in 0..<4 { fields[2 + byte] = UInt8(truncatingIfNeeded: ssrc >> (24 - 8 * byte)) }
        for byte in 0..<6 { fields[6 + byte] = UInt8(truncatingIfNeeded: index >> (40 - 8 * byte)) }
        return initializationVector(fields, salt: salt)
    }

    /// Length of the clear header of an SRTP packet: fixed header, CSRCs and header extension.
    /// Unlike ``RTPHeader/init(parsing:)`` it leaves the padding alone, which is encrypted.
    static func rtpHeaderLength(_ packet: [UInt8]) throws(PreflightError) -> Int {
        let count = packet.count
        guard count >= RTPPacket.fixedHeaderSize else {
            throw PreflightError(code: .truncated, message: "SRTP: truncated fixed header: need 12 byte(s), \(count) present")
        }
        guard packet[0] >> 6 == RTPPacket.version else {
            throw PreflightError(code: .malformed, message: "SRTP: version is \(packet[0] >> 6), expected 2")
        }
        var length = RTPPacket.fixedHeaderSize &+ 4 &* Int(packet[0] & 0x0F)
        if packet[0] & 0x10 != 0 {
            guard count >= length &+ 4 else {
                throw PreflightError(code: .truncated, message: "SRTP: truncated header extension at offset \(length), \(count) byte(s) present")
            }
            length &+= 4 &+ 4 &* (Int(packet[length &+ 2]) << 8 | Int(packet[length &+ 3]))
        }
        guard length <= count else {
            throw PreflightError(code: .truncated, message: "SRTP: header needs \(length) byte(s), \(count) present")
        }
        return length
    }
}

extension SRTPContext {
    /// Protects an RTP packet (RFC 7714 §8, RFC 3711 §3.1): the header (CSRCs and header
    /// extension included) stays in the clear and is authenticated; payload and padding are
    /// encrypted; the tag follows (16 bytes for GCM, 10 for HMAC-SHA1-80). The rollover counter
    /// advances when the sequence number wraps.
    /// - Returns: the SRTP packet, the profile's ``SRTPProfile/rtpOverhead`` bytes longer than `packet`.
    /// - Throws: ``PreflightError`` `.truncated`/`.malformed` when `packet` is not RTP;
    ///   `.invalidArgument` when its index was already protected (it would reuse a GCM nonce) or
    ///   is older than the replay window; `.srtpStreamLimitReached` for a stream beyond
    ///   ``maximumStreamCount`` or past the last index (2^48 − 1).
    public mutating func protectRTP(_ packet: [UInt8]) throws(PreflightError) -> [UInt8] {
        var output = packet + [UInt8](repeating: 0, count: profile.rtpOverhead)
        // Array's closures rethrow untyped errors: the error is carried out by hand.
        var failure: PreflightError?
        output.withUnsafeMutableBytes { buffer in
            do throws(PreflightError) { _ = try protectRTP(inPlace: buffer, length: packet.count) } catch { failure = error }
        }
        if let failure { throw failure }
        return output
    }

    /// ``protectRTP(_:)`` in the caller's memory: the RTP packet of `length` bytes at the start
    /// of `buffer` is protected where it is, its tag written after it (`buffer` must have the
    /// profile's ``SRTPProfile/rtpOverhead`` bytes of room there). With the AEAD profile and the
    /// system's libcrypto nothing is allocated.
    /// - Returns: the SRTP packet's length, `length` + the profile's overhead.
    /// - Throws: as ``protectRTP(_:)``; `.invalidArgument` when `buffer` has no room for the tag.
    public mutating func protectRTP(inPlace buffer: UnsafeMutableRawBufferPointer, length: Int) throws(PreflightError) -> Int {
        let overhead = profile.rtpOverhead
        guard length >= 0, buffer.count >= length &+ overhead else {
            throw PreflightError(code: .invalidArgument, message: "SRTP: no room for the \(overhead)-byte tag after the packet")
        }
        let packet = UnsafeRawBufferPointer(rebasing: buffer[..<length])
        let header = try RTPHeader(parsing: packet)
        let headerLength = header.extensionRange.upperBound
        let ssrc = header.ssrc
        let known = sentRTP[ssrc]
        guard known != nil || sentRTP.count < Self.maximumStreamCount else {
            throw Self.tooManyStreams("SRTP", ssrc: ssrc)
        }
        var stream = known ?? RTPStream()
        let index = try Self.estimateIndex(header.sequenceNumber, highest: stream.window.highest, context: "SRTP")
        if let refusal = stream.window.refusal(of: index) {
            throw PreflightError(code: .invalidArgument, message: "SRTP: cannot protect: \(refusal) (a key stream is never reused)")
        }
        if let rtpAuthenticationKey {
            let data = UnsafeMutableRawBufferPointer(rebasing: buffer[headerLength..<length])
            try Self.applyKeyStream(data, key: rtpKey, iv: Self.counterModeIV(ssrc: ssrc, index: index, salt: rtpSalt), context: "SRTP")
            let tag = Self.counterModeTag(
                key: rtpAuthenticationKey, UnsafeRawBufferPointer(rebasing: buffer[..<length]), trailer: UInt32(truncatingIfNeeded: index >> 16),
                length: overhead)
            tag.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: buffer[length..<(length &+ overhead)]).copyMemory(from: $0) }
            stream.window.accept(index)
            sentRTP[ssrc] = stream
            return length &+ overhead
        }
        try Self.withRTPInitializationVector(ssrc: ssrc, index: index, salt: rtpSalt) { iv throws(PreflightError) in
            let aad = UnsafeRawBufferPointer(rebasing: buffer[..<headerLength])
            let data = UnsafeMutableRawBufferPointer(rebasing: buffer[headerLength..<length])
            let tag = UnsafeMutableRawBufferPointer(rebasing: buffer[length..<(length &+ Self.rtpOverhead)])
            if let rtpAEAD {
                guard rtpAEAD.seal(iv: iv, aad: aad, data: data, tag: tag) else {
                    throw PreflightError(code: .invalidArgument, message: "SRTP: AES-GCM refused the packet")
                }
            } else {
                let sealed = try Self.seal(ArraySlice(data), key: rtpKey, iv: Array(iv), aad: Array(aad), context: "SRTP")
                sealed.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: buffer[headerLength..<(length &+ Self.rtpOverhead)]).copyMemory(from: $0) }
            }
        }
        stream.window.accept(index)
        sentRTP[ssrc] = stream
        return length &+ Self.rtpOverhead
    }

    /// Checks and decrypts an SRTP packet (RFC 7714 §8): estimates its index from the sequence
    /// number (RFC 3711 Appendix A), refuses replays, authenticates header and payload, and only
    /// then records the index.
    /// - Returns: the RTP packet, the profile's ``SRTPProfile/rtpOverhead`` bytes shorter than `packet`.
    /// - Throws: ``PreflightError`` `.truncated`/`.malformed` when the header is cut short or not
    ///   RTP version 2, or no tag follows it; `.srtpReplayed` for a packet already received or
    ///   older than the window; `.srtpAuthenticationFailed` when the tag does not match;
    ///   `.srtpStreamLimitReached` for a new stream beyond ``maximumStreamCount``.
    public mutating func unprotectRTP(_ packet: [UInt8]) throws(PreflightError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: max(0, packet.count &- profile.rtpOverhead))
        // Array's closures rethrow untyped errors: the error is carried out by hand.
        var failure: PreflightError?
        packet.withUnsafeBytes { packet in
            output.withUnsafeMutableBytes { output in
                do throws(PreflightError) { _ = try unprotectRTP(packet, into: output) } catch { failure = error }
            }
        }
        if let failure { throw failure }
        return output
    }

    /// ``unprotectRTP(_:)`` in the caller's memory: the RTP packet (header as it came, payload
    /// decrypted) is written to the start of `output`, which must not overlap `packet` and must
    /// hold `packet.count` − the profile's overhead bytes. Nothing in `output` is to be used
    /// unless this returns. With the AEAD profile and the system's libcrypto nothing is allocated.
    /// - Returns: the RTP packet's length.
    /// - Throws: as ``unprotectRTP(_:)``; `.invalidArgument` when `output` is too small.
    public mutating func unprotectRTP(_ packet: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(PreflightError) -> Int {
        let headerLength = try Self.rtpHeaderLength(packet)
        let overhead = profile.rtpOverhead
        guard packet.count &- headerLength >= overhead else {
            throw PreflightError(
                code: .truncated,
                message: "SRTP: truncated packet: need \(overhead) tag byte(s) after the \(headerLength)-byte header, \(packet.count - headerLength) left")
        }
        let length = packet.count &- overhead
        guard output.count >= length else {
            throw PreflightError(code: .invalidArgument, message: "SRTP: \(output.count) byte(s) of room for a \(length)-byte packet")
        }
        let ssrc = UInt32(packet[8]) << 24 | UInt32(packet[9]) << 16 | UInt32(packet[10]) << 8 | UInt32(packet[11])
        let sequenceNumber = UInt16(packet[2]) << 8 | UInt16(packet[3])
        let known = receivedRTP[ssrc]
        guard known != nil || receivedRTP.count < Self.maximumStreamCount else {
            throw Self.tooManyStreams("SRTP", ssrc: ssrc)
        }
        var stream = known ?? RTPStream()
        let index = try Self.estimateIndex(sequenceNumber, highest: stream.window.highest, context: "SRTP")
        if let refusal = stream.window.refusal(of: index) {
            throw PreflightError(code: .srtpReplayed, message: "SRTP: SSRC \(ssrc): \(refusal)")
        }
        if let rtpAuthenticationKey {
            // The tag first: nothing is decrypted, nor any state changed, for a forged packet.
            let expected = Self.counterModeTag(
                key: rtpAuthenticationKey, UnsafeRawBufferPointer(rebasing: packet[..<length]), trailer: UInt32(truncatingIfNeeded: index >> 16),
                length: overhead)
            guard Self.tagsMatch(UnsafeRawBufferPointer(rebasing: packet[length...]), expected) else { throw Self.authenticationFailed("SRTP") }
            let plain = UnsafeMutableRawBufferPointer(rebasing: output[..<length])
            plain.copyMemory(from: UnsafeRawBufferPointer(rebasing: packet[..<length]))
            try Self.applyKeyStream(
                UnsafeMutableRawBufferPointer(rebasing: output[headerLength..<length]), key: rtpKey,
                iv: Self.counterModeIV(ssrc: ssrc, index: index, salt: rtpSalt), context: "SRTP")
            stream.window.accept(index)
            receivedRTP[ssrc] = stream
            return length
        }
        try Self.withRTPInitializationVector(ssrc: ssrc, index: index, salt: rtpSalt) { iv throws(PreflightError) in
            let aad = UnsafeRawBufferPointer(rebasing: packet[..<headerLength])
            let ciphertext = UnsafeRawBufferPointer(rebasing: packet[headerLength..<length])
            let plaintext = UnsafeMutableRawBufferPointer(rebasing: output[headerLength..<length])
            if let rtpAEAD {
                let tag = UnsafeRawBufferPointer(rebasing: packet[length...])
                guard rtpAEAD.open(iv: iv, aad: aad, ciphertext: ciphertext, tag: tag, into: plaintext) else {
                    throw Self.authenticationFailed("SRTP")
                }
            } else {
                let opened = try Self.open(ArraySlice(packet[headerLength...]), key: rtpKey, iv: Array(iv), aad: Array(aad), context: "SRTP")
                opened.withUnsafeBytes { plaintext.copyMemory(from: $0) }
            }
            UnsafeMutableRawBufferPointer(rebasing: output[..<headerLength]).copyMemory(from: aad)
        }
        stream.window.accept(index)
        receivedRTP[ssrc] = stream
        return length
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
        withRTPInitializationVector(ssrc: ssrc, index: index, salt: salt) { Array($0) }
    }

    /// `body` with the RTP IV in 12 bytes of stack, not an array of its own per packet.
    static func withRTPInitializationVector<T, E: Error>(
        ssrc: UInt32, index: UInt64, salt: [UInt8], _ body: (UnsafeRawBufferPointer) throws(E) -> T
    ) throws(E) -> T {
        var iv: (UInt64, UInt32) = (0, 0)
        return try withUnsafeMutableBytes(of: &iv) { bytes throws(E) in
            for byte in 0..<4 { bytes[2 &+ byte] = UInt8(truncatingIfNeeded: ssrc >> (24 &- 8 &* UInt32(byte))) }
            for byte in 0..<6 { bytes[6 &+ byte] = UInt8(truncatingIfNeeded: index >> (40 &- 8 &* UInt64(byte))) }
            for byte in 0..<min(12, salt.count) { bytes[byte] ^= salt[byte] }
            return try body(UnsafeRawBufferPointer(rebasing: bytes[..<12]))
        }
    }

    /// Length of the clear header of an SRTP packet: fixed header, CSRCs and header extension.
    /// Unlike ``RTPHeader/init(parsing:)`` it leaves the padding alone, which is encrypted.
    static func rtpHeaderLength(_ packet: UnsafeRawBufferPointer) throws(PreflightError) -> Int {
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

import PreflightCore
import Testing

/// SRTP with AEAD_AES_128_GCM: RFC 7714 §16.1's vectors, tampering, replay, rollover.
@Suite struct SRTPContextTests {
    static let key = hexBytes("000102030405060708090a0b0c0d0e0f")
    static let salt = hexBytes("517569642070726f2071756f")
    /// RFC 7714 §16.1.1: the RTP packet (12-byte header, "Gallia est omnis divisa in partes tres").
    static let plain = hexBytes("""
        8040f17b8041f8d35501a0b247616c6c696120657374206f6d6e69732064697669736120696e207061727465732074726573
        """)
    /// RFC 7714 §16.1.1: the encrypted and tagged packet.
    static let protected = hexBytes("""
        8040f17b8041f8d35501a0b2f24de3a3fb34de6cacba861c9d7e4bcabe633bd50d294e6f42a5f47a51c7d19b36de3adf
        8833899d7f27beb16a9152cf765ee4390cce
        """)

    static func vectorContext() throws -> SRTPContext {
        SRTPContext(sessionKeys: try SRTPSessionKeys(rtpKey: key, rtpSalt: salt, rtcpKey: key, rtcpSalt: salt))
    }

    /// A sender and a receiver sharing fresh keying material.
    static func pair() throws -> (sender: SRTPContext, receiver: SRTPContext) {
        let material = SRTPKeyingMaterial.random()
        return (try SRTPContext(keyingMaterial: material), try SRTPContext(keyingMaterial: material))
    }

    static func packet(sequenceNumber: UInt16, ssrc: UInt32 = 0x1122_3344, payload: [UInt8] = Array(repeating: 0xFF, count: 160)) throws -> [UInt8] {
        try RTPPacket(payloadType: 0, sequenceNumber: sequenceNumber, timestamp: UInt32(sequenceNumber) &* 160, ssrc: ssrc, payload: payload[...]).encoded()
    }

    static func code(_ body: () throws -> Void) -> PreflightError.Code? {
        do {
            try body()
            return nil
        } catch let error as PreflightError {
            return error.code
        } catch {
            return nil
        }
    }

    @Test func rfc7714Section16_1_1Encryption() throws {
        var context = try Self.vectorContext()
        let output = try context.protectRTP(Self.plain)
        #expect(output == Self.protected)
        #expect(output.count == Self.plain.count + SRTPContext.rtpOverhead)
    }

    @Test func rfc7714Section16_1_2Decryption() throws {
        var context = try Self.vectorContext()
        #expect(try context.unprotectRTP(Self.protected) == Self.plain)
    }

    @Test(arguments: [0, 5, 11, 12, 30, 49, 65])
    func anyChangedByteIsRefused(position: Int) throws {
        // Header (AAD) bytes 0–11, ciphertext 12–49, tag 50–65.
        var context = try Self.vectorContext()
        var altered = Self.protected
        altered[position] ^= 0x01
        #expect(Self.code { _ = try context.unprotectRTP(altered) } == .srtpAuthenticationFailed)
        // Nothing was committed: the genuine packet is still accepted.
        #expect(try context.unprotectRTP(Self.protected) == Self.plain)
    }

    @Test func derivedKeysAndKeyingMaterialAgree() throws {
        let material = SRTPKeyingMaterial.random()
        var sender = SRTPContext(sessionKeys: try SRTPSessionKeys(deriving: material))
        var receiver = try SRTPContext(keyingMaterial: try SRTPKeyingMaterial(base64: material.base64))
        let plain = try Self.packet(sequenceNumber: 3)
        #expect(try receiver.unprotectRTP(try sender.protectRTP(plain)) == plain)
        let report = try RTCPCompoundPacket([.receiverReport(RTCPReceiverReport(ssrc: 9, reportBlocks: []))]).encoded()
        #expect(try receiver.unprotectRTCP(try sender.protectRTCP(report)) == report)
    }

    @Test func wrongKeyIsRefused() throws {
        var (sender, _) = try Self.pair()
        var (_, stranger) = try Self.pair()
        let protected = try sender.protectRTP(try Self.packet(sequenceNumber: 1))
        #expect(Self.code { _ = try stranger.unprotectRTP(protected) } == .srtpAuthenticationFailed)
    }

    @Test func replayIsRefused() throws {
        var (sender, receiver) = try Self.pair()
        let plain = try Self.packet(sequenceNumber: 7)
        let protected = try sender.protectRTP(plain)
        #expect(try receiver.unprotectRTP(protected) == plain)
        #expect(Self.code { _ = try receiver.unprotectRTP(protected) } == .srtpReplayed)
    }

    @Test func packetsOlderThanTheWindowAreRefused() throws {
        var (sender, receiver) = try Self.pair()
        let old = try sender.protectRTP(try Self.packet(sequenceNumber: 30))
        let new = try sender.protectRTP(try Self.packet(sequenceNumber: 30 + UInt16(SRTPContext.replayWindowSize)))
        _ = try receiver.unprotectRTP(new)
        #expect(Self.code { _ = try receiver.unprotectRTP(old) } == .srtpReplayed)
    }

    @Test func reorderedPacketsWithinTheWindowAreAcceptedOnce() throws {
        var (sender, receiver) = try Self.pair()
        let plains = try (0..<64).map { try Self.packet(sequenceNumber: UInt16(1000 + $0), payload: [UInt8($0)]) }
        let protected = try plains.map { try sender.protectRTP($0) }
        let order = [0, 63, 5, 3, 1, 62, 2, 4] + Array(6..<62)
        for index in order {
            #expect(try receiver.unprotectRTP(protected[index]) == plains[index])
        }
        for index in order {
            #expect(Self.code { _ = try receiver.unprotectRTP(protected[index]) } == .srtpReplayed)
        }
    }

    @Test func rolloverCounterAdvancesAcrossTheWrap() throws {
        var (sender, receiver) = try Self.pair()
        let sequence = Array(UInt16(65_530)...UInt16.max) + Array(UInt16(0)...UInt16(20))
        for number in sequence {
            let plain = try Self.packet(sequenceNumber: number, payload: [UInt8(truncatingIfNeeded: number)])
            #expect(try receiver.unprotectRTP(try sender.protectRTP(plain)) == plain)
        }
    }

    @Test func lateAndEarlyPacketsAroundTheWrapAuthenticate() throws {
        var (sender, receiver) = try Self.pair()
        let numbers: [UInt16] = [65_533, 65_534, 65_535, 0, 1, 2]
        let plains = try numbers.map { try Self.packet(sequenceNumber: $0, payload: [UInt8(truncatingIfNeeded: $0)]) }
        let protected = try plains.map { try sender.protectRTP($0) }
        // 0 and 2 (ROC 1) arrive before 65535 (ROC 0): each is estimated with the right ROC.
        for index in [0, 3, 5, 2, 1, 4] {
            #expect(try receiver.unprotectRTP(protected[index]) == plains[index])
        }
    }

    @Test func theRollOverCounterIsInTheNonce() throws {
        let material = SRTPKeyingMaterial.random()
        var sender = try SRTPContext(keyingMaterial: material)
        var receiver = try SRTPContext(keyingMaterial: material)
        for number in UInt16(65_534)...UInt16.max {
            _ = try receiver.unprotectRTP(try sender.protectRTP(try Self.packet(sequenceNumber: number)))
        }
        // Sequence 3 protected with ROC 0 by a sender that never wrapped: the receiver, now
        // expecting ROC 1 for it, computes another nonce and refuses it.
        var unwrapped = try SRTPContext(keyingMaterial: material)
        let stale = try unwrapped.protectRTP(try Self.packet(sequenceNumber: 3))
        #expect(Self.code { _ = try receiver.unprotectRTP(stale) } == .srtpAuthenticationFailed)
        #expect(try receiver.unprotectRTP(try sender.protectRTP(try Self.packet(sequenceNumber: 3))).count == 172)
    }

    @Test func aForgedPacketMovesNoState() throws {
        var (sender, receiver) = try Self.pair()
        _ = try receiver.unprotectRTP(try sender.protectRTP(try Self.packet(sequenceNumber: 10)))
        // A forgery far ahead: refused, and it must not have advanced the highest index.
        var forger = sender  // a copy, so that the real sender's state stays at 10
        var forged = try forger.protectRTP(try Self.packet(sequenceNumber: 10 + 30_000))
        forged[forged.count - 1] ^= 0xFF
        #expect(Self.code { _ = try receiver.unprotectRTP(forged) } == .srtpAuthenticationFailed)
        let next = try sender.protectRTP(try Self.packet(sequenceNumber: 11))
        #expect(try receiver.unprotectRTP(next).count == 172)
    }

    @Test func headerExtensionCSRCsAndPaddingAreKeptAndAuthenticated() throws {
        var (sender, receiver) = try Self.pair()
        let plain = try RTPPacket(
            marker: true, payloadType: 96, sequenceNumber: 5, timestamp: 9, ssrc: 77, csrcs: [1, 2],
            headerExtension: try RTPHeaderExtension.oneByte([.init(id: 1, data: [0xAB, 0xCD])]),
            payload: [1, 2, 3][...], paddingCount: 5
        ).encoded()
        let protected = try sender.protectRTP(plain)
        let headerLength = 12 + 8 + 8
        #expect(Array(protected[..<headerLength]) == Array(plain[..<headerLength]))
        #expect(protected[headerLength...].elementsEqual(plain[headerLength...]) == false)
        var altered = protected
        altered[13] ^= 0x01  // a CSRC byte
        var copy = receiver
        #expect(Self.code { _ = try copy.unprotectRTP(altered) } == .srtpAuthenticationFailed)
        altered = protected
        altered[headerLength - 1] ^= 0x01  // an extension byte
        #expect(Self.code { _ = try copy.unprotectRTP(altered) } == .srtpAuthenticationFailed)
        #expect(try receiver.unprotectRTP(protected) == plain)
    }

    @Test func protectingAnIndexTwiceIsRefused() throws {
        var (sender, _) = try Self.pair()
        let plain = try Self.packet(sequenceNumber: 42)
        _ = try sender.protectRTP(plain)
        #expect(Self.code { _ = try sender.protectRTP(plain) } == .invalidArgument)
    }

    @Test func malformedInputIsRefusedWithCodes() throws {
        var context = try Self.vectorContext()
        #expect(Self.code { _ = try context.unprotectRTP([0x80, 0, 0]) } == .truncated)
        #expect(Self.code { _ = try context.unprotectRTP(Array(Self.protected.prefix(12 + 15))) } == .truncated)
        var versionOne = Self.protected
        versionOne[0] = 0x40
        #expect(Self.code { _ = try context.unprotectRTP(versionOne) } == .malformed)
        var longExtension = Self.protected
        longExtension[0] |= 0x10
        longExtension[14] = 0xFF  // the extension length word: far past the end
        #expect(Self.code { _ = try context.unprotectRTP(longExtension) } == .truncated)
        #expect(Self.code { _ = try context.protectRTP([0x80, 0]) } == .truncated)
    }

    @Test func streamCountIsBounded() throws {
        var (sender, receiver) = try Self.pair()
        for ssrc in UInt32(1)...UInt32(SRTPContext.maximumStreamCount) {
            _ = try receiver.unprotectRTP(try sender.protectRTP(try Self.packet(sequenceNumber: 1, ssrc: ssrc)))
        }
        let extra = UInt32(SRTPContext.maximumStreamCount + 1)
        #expect(Self.code { _ = try sender.protectRTP(try Self.packet(sequenceNumber: 1, ssrc: extra)) } == .srtpStreamLimitReached)
        // A receiver refuses a 17th stream too, even one that authenticates.
        let material = SRTPKeyingMaterial.random()
        var fullReceiver = try SRTPContext(keyingMaterial: material)
        var manySender = try SRTPContext(keyingMaterial: material)
        var extraSender = try SRTPContext(keyingMaterial: material)
        for ssrc in UInt32(1)...extra {
            let protected = ssrc == extra
                ? try extraSender.protectRTP(try Self.packet(sequenceNumber: 1, ssrc: ssrc))
                : try manySender.protectRTP(try Self.packet(sequenceNumber: 1, ssrc: ssrc))
            let code = Self.code { _ = try fullReceiver.unprotectRTP(protected) }
            #expect(code == (ssrc == extra ? PreflightError.Code.srtpStreamLimitReached : nil))
        }
        // Known streams keep working.
        #expect(try receiver.unprotectRTP(try sender.protectRTP(try Self.packet(sequenceNumber: 2, ssrc: 1))).count == 172)
    }
}

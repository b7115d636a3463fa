@testable import PreflightCore
import Testing

/// SRTCP with AEAD_AES_128_GCM: RFC 7714 §17's vectors, tampering, replay, indexes.
@Suite struct SRTCPTests {
    typealias Vectors = SRTPContextTests
    /// The RTCP packet RFC 7714 §17.1 and §17.3 protect (SSRC "Mars").
    static let plain = hexBytes("""
        81c8000d4d6172734e5450314e545032525450200000042a0000e9304c756e61deadbeefdeadbeefdeadbeefdeadbeefdeadbeef
        """)
    /// RFC 7714 §17.1: encrypted (E = 1), SRTCP index 0x5d4.
    static let protected = hexBytes("""
        81c8000d4d61727363e94885dcdab67ca727d7662f6b7e997ff5c0f76c06f32dc676a5f1730d6fda4ce09b4686303ded0bb9275b
        c84aa45896cf4d2fc5abf87245d9eade800005d4
        """)
    /// RFC 7714 §17.3: authenticated only (E = 0), SRTCP index 0x5d4.
    static let tagged = hexBytes("""
        81c8000d4d6172734e5450314e545032525450200000042a0000e9304c756e61deadbeefdeadbeefdeadbeefdeadbeefdeadbeef
        841dd9683dd78ec92ae58790125f62b3000005d4
        """)

    @Test func rfc7714Section17_1Encryption() throws {
        var context = try Vectors.vectorContext()
        context.sentRTCP[0x4D61_7273] = .init(nextIndex: 0x5D4)
        let output = try context.protectRTCP(Self.plain)
        #expect(output == Self.protected)
        #expect(output.count == Self.plain.count + SRTPContext.rtcpOverhead)
    }

    @Test func rfc7714Section17_1Decryption() throws {
        var context = try Vectors.vectorContext()
        #expect(try context.unprotectRTCP(Self.protected) == Self.plain)
    }

    @Test func rfc7714Section17_3AuthenticationOnly() throws {
        var context = try Vectors.vectorContext()
        #expect(try context.unprotectRTCP(Self.tagged) == Self.plain)
        var altered = Self.tagged
        altered[20] ^= 0x01
        var fresh = try Vectors.vectorContext()
        #expect(Vectors.code { _ = try fresh.unprotectRTCP(altered) } == .srtpAuthenticationFailed)
    }

    @Test(arguments: [0, 7, 8, 40, 51, 52, 67, 68, 71])
    func anyChangedByteIsRefused(position: Int) throws {
        // Header 0–7, ciphertext 8–51, tag 52–67, E ‖ index 68–71 (a change there alters the nonce or AAD).
        var context = try Vectors.vectorContext()
        var altered = Self.protected
        altered[position] ^= 0x01
        #expect(Vectors.code { _ = try context.unprotectRTCP(altered) } == .srtpAuthenticationFailed)
        #expect(try context.unprotectRTCP(Self.protected) == Self.plain)
    }

    @Test func indexesCountUpAndReplaysAreRefused() throws {
        let material = SRTPKeyingMaterial.random()
        var sender = try SRTPContext(keyingMaterial: material)
        var receiver = try SRTPContext(keyingMaterial: material)
        let report = try RTCPCompoundPacket([.receiverReport(RTCPReceiverReport(ssrc: 9, reportBlocks: []))]).encoded()
        var protected: [[UInt8]] = []
        for expectedIndex in UInt32(0)..<5 {
            let packet = try sender.protectRTCP(report)
            #expect(Array(packet.suffix(4)) == [0x80, 0, 0, UInt8(expectedIndex)])
            protected.append(packet)
        }
        for index in [0, 3, 1, 4, 2] {
            #expect(try receiver.unprotectRTCP(protected[index]) == report)
        }
        #expect(Vectors.code { _ = try receiver.unprotectRTCP(protected[2]) } == .srtpReplayed)
    }

    @Test func wrongKeyIsRefused() throws {
        var sender = try SRTPContext(keyingMaterial: .random())
        var receiver = try SRTPContext(keyingMaterial: .random())
        let protected = try sender.protectRTCP(Self.plain)
        #expect(Vectors.code { _ = try receiver.unprotectRTCP(protected) } == .srtpAuthenticationFailed)
    }

    @Test func theLastIndexIsRefused() throws {
        var context = try Vectors.vectorContext()
        context.sentRTCP[0x4D61_7273] = .init(nextIndex: 0x7FFF_FFFF)
        let last = try context.protectRTCP(Self.plain)
        #expect(Array(last.suffix(4)) == [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(Vectors.code { _ = try context.protectRTCP(Self.plain) } == .srtpStreamLimitReached)
    }

    @Test func malformedInputIsRefusedWithCodes() throws {
        var context = try Vectors.vectorContext()
        #expect(Vectors.code { _ = try context.unprotectRTCP(Array(Self.protected.prefix(27))) } == .truncated)
        #expect(Vectors.code { _ = try context.protectRTCP([0x80, 0xC8, 0, 1]) } == .truncated)
        var versionZero = Self.protected
        versionZero[0] = 0x01
        #expect(Vectors.code { _ = try context.unprotectRTCP(versionZero) } == .malformed)
    }
}

import PreflightCore
import Testing

/// SRTP with AES_CM_128_HMAC_SHA1_80 (RFC 3711), what browsers negotiate over DTLS-SRTP: the
/// test vectors libsrtp publishes for its default policy (master key and salt through the key
/// derivation, SSRC 0xcafebabe), tampering, replay, the in-place calls and SRTCP.
@Suite struct SRTPCounterModeTests {
    static let material = hexBytes("e1f97a0d3e018be0d64fa32c06de41390ec675ad498afeebb6960b3aabe6")
    static let rtpPlain = hexBytes("800f1234decafbadcafebabe" + String(repeating: "ab", count: 16))
    static let rtpProtected = hexBytes("800f1234decafbadcafebabe4e55dc4ce79978d88ca4d215949d2402b78d6acc99ea179b8dbb")
    static let rtcpPlain = hexBytes("81c8000bcafebabe" + String(repeating: "ab", count: 16))
    /// SRTCP index 1 (E flag set), then the 80-bit tag.
    static let rtcpProtected = hexBytes("81c8000bcafebabe7128035be487b9bdbef89041f977a5a880000001993e08cd54d6c1230798")

    static func context() throws -> SRTPContext {
        let keying = try SRTPKeyingMaterial(
            masterKey: Array(material[..<16]), masterSalt: Array(material[16...]), profile: .aesCM128HMACSHA1_80)
        return try SRTPContext(keyingMaterial: keying)
    }

    @Test func theProfileHasRFC3711sSizes() {
        let profile = SRTPProfile.aesCM128HMACSHA1_80
        #expect((profile.keyLength, profile.saltLength, profile.tagLength, profile.authenticationKeyLength) == (16, 14, 10, 20))
        #expect((profile.rtpOverhead, profile.rtcpOverhead) == (10, 14))
        #expect(SRTPProfile(rawValue: "AES_CM_128_HMAC_SHA1_80") == profile)
    }

    @Test func rtpMatchesThePublishedVectorBothWays() throws {
        var sender = try Self.context()
        #expect(try sender.protectRTP(Self.rtpPlain) == Self.rtpProtected)
        #expect(!sender.usesSystemCrypto)
        var receiver = try Self.context()
        #expect(try receiver.unprotectRTP(Self.rtpProtected) == Self.rtpPlain)
    }

    @Test func rtcpMatchesThePublishedVector() throws {
        var receiver = try Self.context()
        #expect(try receiver.unprotectRTCP(Self.rtcpProtected) == Self.rtcpPlain)
        // The same index again is a replay.
        #expect(SRTPContextTests.code { _ = try receiver.unprotectRTCP(Self.rtcpProtected) } == .srtpReplayed)
        // A sender's first index is 0, the vector's is 1: its second packet is the vector.
        var sender = try Self.context()
        let first = try sender.protectRTCP(Self.rtcpPlain)
        #expect(first.count == Self.rtcpPlain.count + 14)
        #expect(Array(first[24..<28]) == [0x80, 0, 0, 0])
        #expect(try sender.protectRTCP(Self.rtcpPlain) == Self.rtcpProtected)
        var other = try Self.context()
        #expect(try other.unprotectRTCP(first) == Self.rtcpPlain)
    }

    @Test func anAlteredByteOrTagIsRefusedAndChangesNothing() throws {
        var receiver = try Self.context()
        for position in [1, 12, Self.rtpProtected.count - 1] {
            var forged = Self.rtpProtected
            forged[position] ^= 0x01
            #expect(SRTPContextTests.code { _ = try receiver.unprotectRTP(forged) } == .srtpAuthenticationFailed)
        }
        // Nothing was recorded for the forgeries: the genuine packet still opens, once.
        #expect(try receiver.unprotectRTP(Self.rtpProtected) == Self.rtpPlain)
        #expect(SRTPContextTests.code { _ = try receiver.unprotectRTP(Self.rtpProtected) } == .srtpReplayed)
        var rtcp = Self.rtcpProtected
        rtcp[10] ^= 0x80
        #expect(SRTPContextTests.code { _ = try receiver.unprotectRTCP(rtcp) } == .srtpAuthenticationFailed)
        #expect(SRTPContextTests.code { _ = try receiver.unprotectRTCP(Array(Self.rtcpProtected.prefix(21))) } == .truncated)
        #expect(SRTPContextTests.code { _ = try receiver.unprotectRTP(Array(Self.rtpProtected.prefix(21))) } == .truncated)
    }

    @Test func theInPlaceCallsMatchTheArrayOnesAcrossARollover() throws {
        let keying = SRTPKeyingMaterial.random(profile: .aesCM128HMACSHA1_80)
        var arraySender = try SRTPContext(keyingMaterial: keying)
        var inPlaceSender = try SRTPContext(keyingMaterial: keying)
        var receiver = try SRTPContext(keyingMaterial: keying)
        for sequence in [UInt16(0xFFFE), 0xFFFF, 0, 1] {
            let plain = try SRTPContextTests.packet(sequenceNumber: sequence)
            let protected = try arraySender.protectRTP(plain)
            var buffer = plain + [UInt8](repeating: 0, count: 10)
            let length = try buffer.withUnsafeMutableBytes { try inPlaceSender.protectRTP(inPlace: $0, length: plain.count) }
            #expect(length == plain.count + 10)
            #expect(buffer == protected)
            var output = [UInt8](repeating: 0, count: protected.count)
            let opened = try protected.withUnsafeBytes { packet in
                try output.withUnsafeMutableBytes { try receiver.unprotectRTP(packet, into: $0) }
            }
            #expect(Array(output[..<opened]) == plain)
        }
        // No room for the tag: refused before anything is written.
        let plain = try SRTPContextTests.packet(sequenceNumber: 2)
        var tight = plain + [UInt8](repeating: 0, count: 9)
        #expect(SRTPContextTests.code {
            _ = try tight.withUnsafeMutableBytes { try inPlaceSender.protectRTP(inPlace: $0, length: plain.count) }
        } == .invalidArgument)
    }

    @Test func callsKeepSpeakingTheAEADProfileOnly() {
        let body = SignalingMessage.SRTPKey(SRTPKeyingMaterial.random(profile: .aesCM128HMACSHA1_80))
        #expect(SRTPContextTests.code { _ = try body.material() } == .malformed)
        #expect((try? SignalingMessage.SRTPKey(SRTPKeyingMaterial.random()).material()) != nil)
    }
}

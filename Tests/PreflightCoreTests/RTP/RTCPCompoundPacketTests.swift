import PreflightCore
import Testing

@Suite struct RTCPCompoundPacketTests {
    typealias F = RTPFixtures

    @Test func decodesSRThenSDESThenBYE() throws {
        let compound = try RTCPCompoundPacket(decoding: F.compound, strict: true)
        #expect(compound.packets.count == 3)
        #expect(compound.packets.map(\.packetType) == [200, 202, 203])
        guard case .senderReport(let sr) = compound.packets[0],
            case .sourceDescription(let sdes) = compound.packets[1],
            case .goodbye(let bye) = compound.packets[2]
        else {
            Issue.record("unexpected packets \(compound.packets)")
            return
        }
        #expect(sr.reportBlocks.count == 2)
        #expect(sdes.chunks.first?.cname == "user@host")
        #expect(bye.reason == "left")
        #expect(try compound.encoded() == F.compound)
        var appended: [UInt8] = [1, 2, 3]
        try compound.encode(into: &appended)
        #expect(appended == [1, 2, 3] + F.compound)
    }

    @Test func everyTruncationFails() {
        for strict in [false, true] {
            for length in 0..<F.compound.count {
                let code = F.errorCode { _ = try RTCPCompoundPacket(decoding: F.compound[..<length], strict: strict) }
                // Cuts exactly between packets leave a valid, shorter compound packet.
                if length == 76 || length == 96 {
                    #expect(code == nil, "cut at packet boundary \(length)")
                } else {
                    #expect(code == .truncated || code == .malformed, "cut at \(length): \(String(describing: code))")
                }
            }
        }
    }

    @Test func trailingBytesAreTruncated() {
        for extra in 1...3 {
            let bytes = F.compound + [UInt8](repeating: 0x80, count: extra)
            #expect(F.errorCode { _ = try RTCPCompoundPacket(decoding: bytes) } == .truncated)
        }
    }

    @Test func emptyDatagramIsTruncated() {
        #expect(F.errorCode { _ = try RTCPCompoundPacket(decoding: []) } == .truncated)
    }

    @Test func middleLengthWordRunningPastTheEndIsTruncated() {
        var bytes = F.compound
        bytes[76 + 3] = 0xFF  // SDES length now 255 words
        #expect(F.errorCode { _ = try RTCPCompoundPacket(decoding: bytes) } == .truncated)
    }

    @Test func middleLengthWordTooShortIsRejected() {
        var bytes = F.compound
        bytes[76 + 3] = 3  // SDES says 16 bytes: its last word is read as the next packet's header
        let code = F.errorCode { _ = try RTCPCompoundPacket(decoding: bytes) }
        #expect(code == .truncated || code == .malformed)
    }

    @Test func strictRequiresSROrRRFirst() throws {
        let bytes = F.sdesCNAME + F.byeWithReason
        #expect(F.errorCode { _ = try RTCPCompoundPacket(decoding: bytes, strict: true) } == .malformed)
        let lenient = try RTCPCompoundPacket(decoding: bytes)
        #expect(lenient.packets.map(\.packetType) == [202, 203])
        #expect(
            try RTCPCompoundPacket(decoding: F.receiverReportWithExtension + F.sdesCNAME, strict: true).packets.count
                == 2)
    }

    @Test func strictAllowsPaddingOnlyInTheLastPacket() throws {
        let last = F.senderReport + F.byePadded
        let decoded = try RTCPCompoundPacket(decoding: last, strict: true)
        #expect(decoded.packets.last?.paddingCount == 4)
        #expect(try decoded.encoded() == last)

        let middle = F.senderReport + F.byePadded + F.sdesCNAME
        #expect(F.errorCode { _ = try RTCPCompoundPacket(decoding: middle, strict: true) } == .malformed)
        let lenient = try RTCPCompoundPacket(decoding: middle)
        #expect(lenient.packets.map(\.paddingCount) == [0, 4, 0])
        #expect(try lenient.encoded() == middle)
    }

    @Test func versionIsCheckedInEveryPacket() {
        var bytes = F.compound
        bytes[96] = 0x41  // BYE with version 1
        #expect(F.errorCode { _ = try RTCPCompoundPacket(decoding: bytes) } == .malformed)
    }

    @Test func aMalformedInnerPacketFailsTheDatagram() {
        var bytes = F.compound
        bytes[76] = 0x82  // SDES count 2, but only one chunk fits
        #expect(F.errorCode { _ = try RTCPCompoundPacket(decoding: bytes) } == .truncated)
    }
}

import PreflightCore
import Testing

@Suite struct RTCPPacketTests {
    typealias F = RTPFixtures

    @Test func decodesSenderReportWithTwoBlocks() throws {
        let sr = try RTCPSenderReport(decoding: F.senderReport)
        #expect(sr.ssrc == 0x1122_3344)
        #expect(sr.ntpTimestamp == NTPTimestamp(seconds: 3_906_250_000, fraction: 0x4000_0000))
        #expect(sr.ntpTimestamp.unixTime == 1_697_261_200.25)
        #expect(sr.ntpTimestamp.middle32Bits == 0xA510_4000)
        #expect(sr.rtpTimestamp == 0x0001_2345)
        #expect(sr.packetCount == 1000)
        #expect(sr.octetCount == 160_000)
        #expect(sr.profileExtension.isEmpty)
        #expect(sr.paddingCount == 0)
        #expect(
            sr.reportBlocks == [
                RTCPReportBlock(
                    ssrc: 0xAABB_CCDD, fractionLost: 64, cumulativeLost: 5, extendedHighestSequenceNumber: 0x0001_0010,
                    interarrivalJitter: 32, lastSenderReport: 0xA510_0000, delaySinceLastSenderReport: 0x0001_8000
                ),
                RTCPReportBlock(
                    ssrc: 0x0102_0304, fractionLost: 0, cumulativeLost: -3, extendedHighestSequenceNumber: 0xFFFF
                ),
            ]
        )
        #expect(try sr.encoded() == F.senderReport)
        #expect(try RTCPPacket(decoding: F.senderReport) == .senderReport(sr))
    }

    @Test func decodesReceiverReportWithExtension() throws {
        let rr = try RTCPReceiverReport(decoding: F.receiverReportWithExtension)
        #expect(rr.ssrc == 0x5566_7788)
        #expect(rr.reportBlocks.count == 1)
        let block = try #require(rr.reportBlocks.first)
        #expect(block.ssrc == 0x1122_3344)
        #expect(block.fractionLost == 255)
        #expect(block.cumulativeLost == 8_388_607)
        #expect(block.extendedHighestSequenceNumber == 100)
        #expect(block.interarrivalJitter == 256)
        #expect(block.lastSenderReport == 0x1234_5678)
        #expect(block.delaySinceLastSenderReport == 1)
        #expect(Array(rr.profileExtension) == [0xDE, 0xAD, 0xBE, 0xEF])
        #expect(try rr.encoded() == F.receiverReportWithExtension)
    }

    @Test func decodesSDESCNAME() throws {
        let sdes = try RTCPSourceDescription(decoding: F.sdesCNAME)
        #expect(sdes.chunks.count == 1)
        #expect(sdes.chunks.first?.ssrc == 0x1122_3344)
        #expect(sdes.chunks.first?.cname == "user@host")
        #expect(try sdes.encoded() == F.sdesCNAME)
        #expect(try RTCPSourceDescription.cname("user@host", ssrc: 0x1122_3344).encoded() == F.sdesCNAME)
    }

    @Test func decodesSDESChunksNeedingOneToFourNulls() throws {
        let sdes = try RTCPSourceDescription(decoding: F.sdesThreeChunks)
        typealias Item = RTCPSourceDescription.Item
        #expect(
            sdes.chunks == [
                .init(ssrc: 0x1122_3344, items: [.cname("a"), Item(type: Item.toolType, text: "pf")]),
                .init(ssrc: 0x5566_7788, items: [.cname("ab")]),
                .init(ssrc: 0x9999_9999, items: []),
            ]
        )
        #expect(sdes.chunks[2].cname == nil)
        #expect(sdes.cname(ssrc: 0x5566_7788) == "ab")
        #expect(sdes.cname(ssrc: 0x9999_9999) == nil)
        #expect(sdes.cname(ssrc: 0x0BAD_F00D) == nil)
        #expect(try sdes.encoded() == F.sdesThreeChunks)
    }

    @Test func decodesBYEWithReason() throws {
        let bye = try RTCPGoodbye(decoding: F.byeWithReason)
        #expect(bye.ssrcs == [0x1122_3344])
        #expect(bye.reason == "left")
        #expect(try bye.encoded() == F.byeWithReason)
        #expect(try RTCPGoodbye(ssrcs: [0x1122_3344], reason: "left").encoded() == F.byeWithReason)
    }

    @Test func decodesPaddedBYEWithoutReason() throws {
        let bye = try RTCPGoodbye(decoding: F.byePadded)
        #expect(bye.ssrcs == [0x1122_3344, 0x5566_7788])
        #expect(bye.reason == nil)
        #expect(bye.paddingCount == 4)
        #expect(try bye.encoded() == F.byePadded)
    }

    @Test(arguments: [(0, 3), (1, 2), (2, 1), (3, 0), (4, 3)] as [(Int, Int)])
    func byeReasonIsPaddedToAWord(length: Int, nulls: Int) throws {
        // Header (4) + SSRC (4) + length byte + reason + nulls to the boundary.
        let reason = String(repeating: "x", count: length)
        let bytes = try RTCPGoodbye(ssrcs: [7], reason: reason).encoded()
        #expect(bytes.count == 8 + 1 + length + nulls)
        #expect(bytes.count % 4 == 0)
        #expect(Int(bytes[3]) == bytes.count / 4 - 1)
        #expect(bytes[8] == UInt8(length))
        #expect(bytes.suffix(nulls).allSatisfy { $0 == 0 })
        #expect(try RTCPGoodbye(decoding: bytes).reason == reason)
    }

    @Test func keepsUnknownTypes() throws {
        let packet = try RTCPPacket(decoding: F.app)
        guard case .unknown(let app) = packet else {
            Issue.record("APP should decode as unknown, got \(packet)")
            return
        }
        #expect(app.packetType == 204)
        #expect(app.count == 5)
        #expect(Array(app.payload) == Array(F.app[4...]))
        #expect(packet.packetType == 204)
        #expect(try packet.encoded() == F.app)
    }

    @Test func cumulativeLostRoundTripsNegativeValues() throws {
        for lost: Int32 in [-1, -3, -8_388_608, 0, 1, 8_388_607] {
            let rr = RTCPReceiverReport(ssrc: 1, reportBlocks: [RTCPReportBlock(ssrc: 2, cumulativeLost: lost)])
            let bytes = try rr.encoded()
            // The 24-bit field is the low 3 bytes of the word after the block's SSRC (offset 12).
            let field = Int32(bytes[13]) << 16 | Int32(bytes[14]) << 8 | Int32(bytes[15])
            #expect(field == lost & 0xFF_FFFF)
            #expect(try RTCPReceiverReport(decoding: bytes).reportBlocks.first?.cumulativeLost == lost)
        }
    }

    @Test(
        arguments: [
            (8_388_608, [0x7F, 0xFF, 0xFF]), (Int32.max, [0x7F, 0xFF, 0xFF]),
            (-8_388_609, [0x80, 0x00, 0x00]), (Int32.min, [0x80, 0x00, 0x00]),
            (-2, [0xFF, 0xFF, 0xFE]),
        ] as [(Int32, [UInt8])])
    func cumulativeLostIsClampedOnEncode(lost: Int32, field: [UInt8]) throws {
        let rr = RTCPReceiverReport(
            ssrc: 1, reportBlocks: [RTCPReportBlock(ssrc: 2, fractionLost: 0x12, cumulativeLost: lost)])
        let bytes = try rr.encoded()
        #expect(bytes[12] == 0x12)
        #expect(Array(bytes[13...15]) == field)
    }

    @Test func everyTruncationOfEveryVectorFails() {
        for (name, bytes) in F.rtcpVectors {
            for length in 0..<bytes.count {
                let code = F.errorCode { _ = try RTCPPacket(decoding: bytes[..<length]) }
                #expect(
                    code == .truncated || code == .malformed, "\(name) cut at \(length): \(String(describing: code))")
            }
        }
    }

    @Test(arguments: [0x02, 0x42, 0xC2] as [UInt8])
    func rejectsOtherVersions(firstOctet: UInt8) {
        var bytes = F.senderReport
        bytes[0] = firstOctet
        #expect(F.errorCode { _ = try RTCPPacket(decoding: bytes) } == .malformed)
        #expect(F.errorCode { _ = try RTCPCompoundPacket(decoding: bytes) } == .malformed)
    }

    @Test func lengthWordTooLargeIsTruncated() {
        var bytes = F.byeWithReason
        bytes[3] = 4  // says 20 bytes, 16 present
        #expect(F.errorCode { _ = try RTCPGoodbye(decoding: bytes) } == .truncated)
        #expect(F.errorCode { _ = try RTCPCompoundPacket(decoding: bytes) } == .truncated)
    }

    @Test func lengthWordTooSmallLeavesTrailingBytes() {
        var bytes = F.byeWithReason
        bytes[3] = 2  // says 12 bytes, 16 present
        #expect(F.errorCode { _ = try RTCPGoodbye(decoding: bytes) } == .malformed)
    }

    @Test func reportCountBeyondTheLengthIsTruncated() {
        var bytes = F.senderReport
        bytes[0] = 0x83  // RC=3, but the length only holds 2 blocks
        #expect(F.errorCode { _ = try RTCPSenderReport(decoding: bytes) } == .truncated)
    }

    @Test(
        arguments: [
            // P bit with count 0
            [0xA0, 0xC9, 0x00, 0x01, 0x11, 0x22, 0x33, 0x00],
            // P bit with count larger than the bytes after the header
            [0xA0, 0xC9, 0x00, 0x01, 0x11, 0x22, 0x33, 0x09],
        ] as [[UInt8]])
    func rejectsBadPadding(bytes: [UInt8]) {
        #expect(F.errorCode { _ = try RTCPPacket(decoding: bytes) } == .malformed)
    }

    @Test func rejectsPacketOfAnotherType() {
        #expect(F.errorCode { _ = try RTCPSenderReport(decoding: F.receiverReportWithExtension) } == .malformed)
        #expect(F.errorCode { _ = try RTCPReceiverReport(decoding: F.senderReport) } == .malformed)
        #expect(F.errorCode { _ = try RTCPSourceDescription(decoding: F.byeWithReason) } == .malformed)
        #expect(F.errorCode { _ = try RTCPGoodbye(decoding: F.sdesCNAME) } == .malformed)
    }

    @Test func sdesRejectsNonZeroChunkPaddingAndExtraBytes() {
        var dirty = F.sdesThreeChunks
        dirty[25] = 0x01  // the null after chunk 2's END (offset 24) becomes non-zero
        #expect(F.errorCode { _ = try RTCPSourceDescription(decoding: dirty) } == .malformed)
        var fewerChunks = F.sdesThreeChunks
        fewerChunks[0] = 0x82  // SC=2: chunk 3 is left over
        #expect(F.errorCode { _ = try RTCPSourceDescription(decoding: fewerChunks) } == .malformed)
        var moreChunks = F.sdesThreeChunks
        moreChunks[0] = 0x84  // SC=4: nothing left for chunk 4
        #expect(F.errorCode { _ = try RTCPSourceDescription(decoding: moreChunks) } == .truncated)
    }

    @Test func byeRejectsNonZeroPaddingAndExtraWords() {
        var dirty = F.byeWithReason
        dirty[15] = 0x20
        #expect(F.errorCode { _ = try RTCPGoodbye(decoding: dirty) } == .malformed)
        let extra: [UInt8] = [0x81, 0xCB, 0x00, 0x04] + Array(F.byeWithReason[4...]) + [0, 0, 0, 0]
        #expect(F.errorCode { _ = try RTCPGoodbye(decoding: extra) } == .malformed)
    }

    static let invalidPackets: [(String, RTCPPacket)] = [
        (
            "SR with 32 blocks",
            .senderReport(
                RTCPSenderReport(
                    ssrc: 1, ntpTimestamp: NTPTimestamp(seconds: 0, fraction: 0), rtpTimestamp: 0, packetCount: 0,
                    octetCount: 0, reportBlocks: Array(repeating: RTCPReportBlock(ssrc: 2), count: 32)
                )
            )
        ),
        (
            "RR with 32 blocks",
            .receiverReport(
                RTCPReceiverReport(ssrc: 1, reportBlocks: Array(repeating: RTCPReportBlock(ssrc: 2), count: 32)))
        ),
        ("RR extension of 3 bytes", .receiverReport(RTCPReceiverReport(ssrc: 1, profileExtension: [1, 2, 3]))),
        ("RR padding 3", .receiverReport(RTCPReceiverReport(ssrc: 1, paddingCount: 3))),
        (
            "SDES with 32 chunks",
            .sourceDescription(RTCPSourceDescription(chunks: Array(repeating: .init(ssrc: 1, items: []), count: 32)))
        ),
        (
            "SDES item of 256 bytes",
            .sourceDescription(
                RTCPSourceDescription(chunks: [
                    .init(ssrc: 1, items: [.init(type: 1, value: ArraySlice(repeating: 0x61, count: 256))])
                ])
            )
        ),
        (
            "SDES item type 0",
            .sourceDescription(RTCPSourceDescription(chunks: [.init(ssrc: 1, items: [.init(type: 0, text: "x")])]))
        ),
        ("BYE with 32 SSRCs", .goodbye(RTCPGoodbye(ssrcs: Array(0..<32)))),
        ("BYE reason of 256 bytes", .goodbye(RTCPGoodbye(ssrcs: [1], reason: String(repeating: "y", count: 256)))),
        ("unknown count 32", .unknown(RTCPUnknownPacket(packetType: 204, count: 32, payload: []))),
        ("unknown payload of 3 bytes", .unknown(RTCPUnknownPacket(packetType: 204, count: 0, payload: [1, 2, 3]))),
        (
            "unknown longer than the length word",
            .unknown(RTCPUnknownPacket(packetType: 204, count: 0, payload: ArraySlice(repeating: 0, count: 4 * 65536)))
        ),
    ]

    @Test(arguments: invalidPackets.indices)
    func encoderRejects(index: Int) {
        let (name, packet) = Self.invalidPackets[index]
        var output: [UInt8] = [0xEE]
        #expect(F.errorCode { try packet.encode(into: &output) } == .invalidArgument, "\(name)")
        #expect(output == [0xEE], "output unchanged after \(name)")
        var compoundOutput: [UInt8] = [0xEE]
        let compound = RTCPCompoundPacket([.receiverReport(RTCPReceiverReport(ssrc: 9)), packet])
        #expect(F.errorCode { try compound.encode(into: &compoundOutput) } == .invalidArgument, "\(name) in compound")
        #expect(compoundOutput == [0xEE], "compound output unchanged after \(name)")
    }

    @Test func unknownPayloadMayBeAlignedByPadding() throws {
        // 3 payload bytes + 1 padding byte (the count itself) make one word.
        let packet = RTCPUnknownPacket(packetType: 204, count: 1, payload: [0xA, 0xB, 0xC], paddingCount: 1)
        let bytes = try packet.encoded()
        #expect(bytes == [0xA1, 0xCC, 0x00, 0x01, 0x0A, 0x0B, 0x0C, 0x01])
        #expect(try RTCPUnknownPacket(decoding: bytes) == packet)
    }
}

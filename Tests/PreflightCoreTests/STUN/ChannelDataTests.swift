import PreflightCore
import Testing

@Suite struct ChannelDataTests {
    @Test func alignedDataByHand() throws {
        let bytes: [UInt8] = [0x40, 0x00, 0x00, 0x04, 0xDE, 0xAD, 0xBE, 0xEF]
        let message = try ChannelData(decoding: bytes)
        #expect(message.channelNumber == 0x4000)
        #expect(message.data == [0xDE, 0xAD, 0xBE, 0xEF])
        #expect(message.encoded() == bytes)
        #expect(message.encoded(padded: true) == bytes)
        #expect(try ChannelData(decoding: bytes, padded: true) == message)
    }

    @Test func unalignedDataWithAndWithoutPadding() throws {
        let unpadded: [UInt8] = [0x4F, 0xFF, 0x00, 0x05, 1, 2, 3, 4, 5]
        let padded = unpadded + [0, 0, 0]
        let message = try ChannelData(channelNumber: 0x4FFF, data: [1, 2, 3, 4, 5])
        #expect(message.encoded() == unpadded)
        #expect(message.encoded(padded: true) == padded)
        #expect(message.encodedLength() == 9)
        #expect(message.encodedLength(padded: true) == 12)
        #expect(try ChannelData(decoding: unpadded) == message)
        // UDP may carry the padding too.
        #expect(try ChannelData(decoding: padded) == message)
        #expect(try ChannelData(decoding: padded, padded: true) == message)
        // On a stream the padding must be there.
        expectError(.truncated) { () throws(PreflightError) in _ = try ChannelData(decoding: unpadded, padded: true) }
    }

    @Test func streamDecodingStopsAtTheFrameEnd() throws {
        let first: [UInt8] = [0x40, 0x01, 0x00, 0x01, 0xAA, 0, 0, 0]
        let second: [UInt8] = [0x40, 0x02, 0x00, 0x00]
        let stream = first + second
        let frame = try ChannelData(decoding: stream[...], padded: true)
        #expect(frame.channelNumber == 0x4001 && frame.data == [0xAA])
        let next = try ChannelData(decoding: stream[frame.encodedLength(padded: true)...], padded: true)
        #expect(next.channelNumber == 0x4002 && next.data.isEmpty)
        // In a datagram, a second message is not padding.
        expectError(.malformed) { () throws(PreflightError) in _ = try ChannelData(decoding: stream) }
    }

    @Test(arguments: [UInt16(0x0000), 0x3FFF, 0x5000, 0x7FFF, 0xFFFF])
    func channelNumbersOutsideTheRangeAreRejected(_ number: UInt16) {
        let bytes: [UInt8] = [UInt8(number >> 8), UInt8(number & 0xFF), 0, 0]
        expectError(.malformed) { () throws(PreflightError) in _ = try ChannelData(decoding: bytes) }
        expectError(.invalidArgument) { () throws(PreflightError) in _ = try ChannelData(channelNumber: number, data: []) }
    }

    @Test func truncatedInputs() {
        for bytes: [UInt8] in [[], [0x40], [0x40, 0x00, 0x00], [0x40, 0x00, 0x00, 0x04, 1, 2, 3]] {
            expectError(.truncated, "\(bytes)") { () throws(PreflightError) in _ = try ChannelData(decoding: bytes) }
        }
    }

    @Test func dataTooLongToEncode() {
        expectError(.invalidArgument) { () throws(PreflightError) in
            _ = try ChannelData(channelNumber: 0x4000, data: ArraySlice(repeating: 0, count: 65_536))
        }
    }
}

@Suite struct PacketKindTests {
    @Test(arguments: [
        (UInt8(0), PacketKind.stun), (3, .stun), (4, .unknown), (15, .unknown), (16, .zrtp), (19, .zrtp),
        (20, .dtls), (63, .dtls), (64, .turnChannel), (79, .turnChannel), (80, .unknown), (127, .unknown),
        (192, .unknown), (255, .unknown),
    ])
    func firstByteEdges(_ first: UInt8, _ kind: PacketKind) {
        #expect(PacketKind.classify([first, 0x00, 0x00, 0x00]) == kind)
    }

    /// RTP version 2 with the marker bit clear (0x80) or set (0x81 of the first byte is CC=1; marker is the
    /// second byte's top bit), second byte = RTCP packet type or marker+payload type.
    @Test(arguments: [
        (UInt8(0x80), UInt8(200), PacketKind.rtcp),  // SR
        (0x81, 201, .rtcp),  // RR with one report block
        (0x81, 202, .rtcp),  // SDES
        (0x81, 203, .rtcp),  // BYE
        (0x80, 192, .rtcp), (0x80, 223, .rtcp),  // edges of RFC 5761's RTCP range
        (0x80, 191, .rtp), (0x80, 224, .rtp),
        (0x80, 0, .rtp),  // PCMU
        (0x80, 96, .rtp),  // dynamic payload type
        (0x80, 127, .rtp),
        (0x80, 0x80 | 96, .rtp),  // marker set, PT 96
        (0x80, 0x80 | 0, .rtp),  // marker set, PT 0
        (128, 0, .rtp), (191, 0, .rtp),
    ])
    func rtpVersusRTCP(_ first: UInt8, _ second: UInt8, _ kind: PacketKind) {
        #expect(PacketKind.classify([first, second, 0, 0]) == kind)
    }

    @Test func shortInputs() {
        #expect(PacketKind.classify([]) == .unknown)
        #expect(PacketKind.classify([0x00]) == .stun)
        #expect(PacketKind.classify([0x80]) == .unknown)
        let buffer: [UInt8] = [0xFF, 0x80, 0xC8]
        #expect(PacketKind.classify(buffer[1...]) == .rtcp)
    }

    @Test func classifiesRealMessages() throws {
        #expect(PacketKind.classify(rfc5769Vectors[0].bytes) == .stun)
        #expect(PacketKind.classify(rfc5769Vectors[1].bytes) == .stun)
        #expect(PacketKind.classify(try ChannelData(channelNumber: 0x4FFF, data: [1]).encoded()) == .turnChannel)
    }
}

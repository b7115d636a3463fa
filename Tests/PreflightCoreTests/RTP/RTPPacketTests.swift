import PreflightCore
import Testing

@Suite struct RTPPacketTests {
    typealias F = RTPFixtures

    @Test func decodesPCMUWithCSRCsAndOneByteExtension() throws {
        let bytes = F.pcmuWithCSRCsAndOneByteExtension
        let packet = try RTPPacket(decoding: bytes)
        #expect(packet.marker)
        #expect(packet.payloadType == 0)
        #expect(packet.sequenceNumber == 0x1234)
        #expect(packet.timestamp == 1600)
        #expect(packet.ssrc == 0xDEAD_BEEF)
        #expect(packet.csrcs == [0x0102_0304, 0x0506_0708])
        #expect(packet.paddingCount == 0)
        #expect(!packet.hasPadding)
        let ext = try #require(packet.headerExtension)
        #expect(ext.profile == 0xBEDE)
        #expect(ext.kind == .oneByte)
        #expect(ext.data.count == 12)
        let elements = try ext.elements()
        #expect(elements.map(\.id) == [1, 2, 3])
        #expect(elements.map { Array($0.data) } == [[0xA0], [0xB0, 0xB1], [0xC0, 0xC1, 0xC2, 0xC3]])
        #expect(ext.element(id: 2).map(Array.init) == [0xB0, 0xB1])
        #expect(ext.element(id: 4) == nil)
        #expect(Array(packet.payload) == [0xFF, 0x7F, 0x00, 0x80])
        #expect(packet.encodedCount == bytes.count)
        #expect(try packet.encoded() == bytes)
    }

    @Test func decodesTwoByteExtensionAndPadding() throws {
        let bytes = F.twoByteExtensionWithPadding
        let packet = try RTPPacket(decoding: bytes)
        #expect(!packet.marker)
        #expect(packet.payloadType == 96)
        #expect(packet.sequenceNumber == 0xFFFF)
        #expect(packet.timestamp == 0xFFFF_FFFF)
        #expect(packet.ssrc == 1)
        #expect(packet.csrcs.isEmpty)
        #expect(packet.paddingCount == 4)
        #expect(Array(packet.payload) == [0x11, 0x22, 0x33])
        let ext = try #require(packet.headerExtension)
        #expect(ext.profile == 0x1005)
        #expect(ext.kind == .twoByte(appBits: 5))
        let elements = try ext.elements()
        #expect(elements.map(\.id) == [1, 2, 3])
        #expect(elements.map { Array($0.data) } == [[], [0xAA], [0xB0, 0xB1, 0xB2, 0xB3]])
        #expect(ext.element(id: 1).map(Array.init) == [])
        #expect(try packet.encoded() == bytes)
    }

    @Test func decodesBareHeader() throws {
        let packet = try RTPPacket(decoding: F.bareHeader)
        #expect(packet.payloadType == 8)
        #expect(packet.sequenceNumber == 1)
        #expect(packet.ssrc == 0xCAFE_BABE)
        #expect(packet.headerExtension == nil)
        #expect(packet.payload.isEmpty)
        #expect(try packet.encoded() == F.bareHeader)
    }

    @Test func encodeAppendsToExistingBytes() throws {
        let packet = try RTPPacket(decoding: F.bareHeader)
        var output: [UInt8] = [0xAA, 0xBB]
        try packet.encode(into: &output)
        #expect(output == [0xAA, 0xBB] + F.bareHeader)
    }

    @Test func decodesFromASliceWithNonZeroStartIndex() throws {
        let framed: [UInt8] = [0x00, 0x01, 0x02] + F.pcmuWithCSRCsAndOneByteExtension
        let packet = try RTPPacket(decoding: framed[3...])
        #expect(packet.ssrc == 0xDEAD_BEEF)
        #expect(try packet.headerExtension?.elements().count == 3)
        #expect(try packet.encoded() == F.pcmuWithCSRCsAndOneByteExtension)
    }

    /// A 180-byte PCMU packet (12 header + 8 extension + 160 payload) decodes without copying:
    /// payload and extension point into the input, and the empty CSRC list has no storage.
    @Test func decodeIsZeroCopy() throws {
        var bytes: [UInt8] = [
            0x90, 0x00, 0x00, 0x07,  // V=2, X=1, PT=0, seq 7
            0x00, 0x00, 0x04, 0x60,  // timestamp 1120
            0x01, 0x02, 0x03, 0x04,  // SSRC
            0xBE, 0xDE, 0x00, 0x01,  // one-byte extension, 1 word
            0x22, 0x12, 0x34, 0x56,  // ID 2, 3 bytes (abs-send-time shape)
        ]
        bytes += repeatElement(0xFF, count: 160)
        let packet = try RTPPacket(decoding: bytes)
        #expect(packet.payload.count == 160)
        #expect(packet.csrcs.capacity == 0)
        let ext = try #require(packet.headerExtension)
        bytes.withUnsafeBufferPointer { input in
            let base = input.baseAddress
            packet.payload.withUnsafeBufferPointer { #expect($0.baseAddress == base.map { $0 + 20 }) }
            ext.data.withUnsafeBufferPointer { #expect($0.baseAddress == base.map { $0 + 16 }) }
            ext.element(id: 2)?.withUnsafeBufferPointer { #expect($0.baseAddress == base.map { $0 + 17 }) }
        }
        #expect(ext.element(id: 2).map(Array.init) == [0x12, 0x34, 0x56])
    }

    @Test(arguments: F.rtpVectors.map(\.name))
    func everyCutInsideTheHeaderFails(name: String) throws {
        let vector = try #require(F.rtpVectors.first { $0.name == name })
        for length in 0..<vector.headerSize {
            let code = F.errorCode { _ = try RTPPacket(decoding: vector.bytes[..<length]) }
            #expect(code == .truncated, "\(name) cut at \(length)")
        }
    }

    /// RTP has no length field: a cut inside the payload either fails (padding now invalid) or
    /// yields a shorter payload with an unchanged header.
    @Test(arguments: F.rtpVectors.map(\.name))
    func cutsInsideThePayloadNeverCrash(name: String) throws {
        let vector = try #require(F.rtpVectors.first { $0.name == name })
        let full = try RTPPacket(decoding: vector.bytes)
        for length in vector.headerSize...vector.bytes.count {
            do {
                let packet = try RTPPacket(decoding: vector.bytes[..<length])
                #expect(packet.ssrc == full.ssrc)
                #expect(packet.headerExtension == full.headerExtension)
                #expect(packet.payload.count + Int(packet.paddingCount) == length - vector.headerSize)
            } catch {
                #expect(error.code == .malformed, "\(name) cut at \(length)")
            }
        }
    }

    @Test(arguments: [0x00, 0x40, 0xC0] as [UInt8])
    func rejectsOtherVersions(firstOctet: UInt8) {
        var bytes = F.bareHeader
        bytes[0] = firstOctet
        #expect(F.errorCode { _ = try RTPPacket(decoding: bytes) } == .malformed)
    }

    @Test(
        arguments: [
            // P bit set, nothing after the header: no count byte
            [0xA0, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01],
            // P bit set, count 0
            [0xA0, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xAB, 0x00],
            // P bit set, count 3 but only 2 bytes after the header
            [0xA0, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x03],
            // P bit set, count 255 with 4 bytes after the header
            [0xA0, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x01, 0x02, 0x03, 0xFF],
        ] as [[UInt8]])
    func rejectsBadPadding(bytes: [UInt8]) {
        #expect(F.errorCode { _ = try RTPPacket(decoding: bytes) } == .malformed)
    }

    @Test func paddingMayCoverTheWholePayload() throws {
        // P bit, 4 bytes after the header, count 4: empty payload.
        let bytes: [UInt8] = [0xA0, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 1, 0x00, 0x00, 0x00, 0x04]
        let packet = try RTPPacket(decoding: bytes)
        #expect(packet.payload.isEmpty)
        #expect(packet.paddingCount == 4)
        #expect(try packet.encoded() == bytes)
    }

    @Test func extensionLengthPastTheEndIsTruncated() {
        // X bit, extension says 2 words, only 1 present.
        let bytes: [UInt8] = [0x90, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0xBE, 0xDE, 0x00, 0x02, 0x10, 0xAA, 0, 0]
        #expect(F.errorCode { _ = try RTPPacket(decoding: bytes) } == .truncated)
    }

    @Test func encodesFromFields() throws {
        let packet = RTPPacket(
            marker: true, payloadType: 0, sequenceNumber: 0x1234, timestamp: 1600, ssrc: 0xDEAD_BEEF,
            csrcs: [0x0102_0304, 0x0506_0708],
            headerExtension: try .oneByte([
                .init(id: 1, data: [0xA0]), .init(id: 2, data: [0xB0, 0xB1]),
                .init(id: 3, data: [0xC0, 0xC1, 0xC2, 0xC3]),
            ]),
            payload: [0xFF, 0x7F, 0x00, 0x80]
        )
        // Same fields as the vector, but the builder packs elements without the example's two pad bytes.
        let expected: [UInt8] =
            Array(F.pcmuWithCSRCsAndOneByteExtension[0..<24]) + [
                0x10, 0xA0, 0x21, 0xB0, 0xB1, 0x33, 0xC0, 0xC1, 0xC2, 0xC3, 0x00, 0x00,
            ]
            + [0xFF, 0x7F, 0x00, 0x80]
        #expect(try packet.encoded() == expected)
    }

    static let invalidPackets: [(String, RTPPacket)] = [
        (
            "16 CSRCs",
            RTPPacket(payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0, csrcs: Array(0..<16), payload: [])
        ),
        ("payload type 128", RTPPacket(payloadType: 128, sequenceNumber: 0, timestamp: 0, ssrc: 0, payload: [])),
        (
            "extension of 3 bytes",
            RTPPacket(
                payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0,
                headerExtension: RTPHeaderExtension(profile: 0xBEDE, data: [1, 2, 3]), payload: []
            )
        ),
        (
            "extension of 65536 words",
            RTPPacket(
                payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0,
                headerExtension: RTPHeaderExtension(profile: 0x1234, data: [UInt8](repeating: 0, count: 4 * 65536)),
                payload: []
            )
        ),
    ]

    @Test(arguments: invalidPackets.indices)
    func encoderRejectsWhatTheHeaderCannotCarry(index: Int) {
        let (name, packet) = Self.invalidPackets[index]
        var output: [UInt8] = [0x01]
        #expect(F.errorCode { try packet.encode(into: &output) } == .invalidArgument, "\(name)")
        #expect(output == [0x01], "output unchanged after \(name)")
    }

    @Test func fifteenCSRCsAreAllowed() throws {
        let packet = RTPPacket(
            payloadType: 127, sequenceNumber: 0, timestamp: 0, ssrc: 0, csrcs: Array(1...15), payload: [])
        let bytes = try packet.encoded()
        #expect(bytes[0] == 0x8F)  // V=2, CC=15
        #expect(bytes[1] == 0x7F)
        #expect(bytes.count == 12 + 60)
        #expect(try RTPPacket(decoding: bytes) == packet)
    }
}

import PreflightCore
import Testing

@Suite struct RTPHeaderExtensionTests {
    typealias F = RTPFixtures

    @Test(
        arguments: [
            (0xBEDE, RTPHeaderExtension.Kind.oneByte),
            (0x1000, .twoByte(appBits: 0)),
            (0x100F, .twoByte(appBits: 15)),
            (0x1010, .opaque),
            (0x0FFF, .opaque),
            (0xBEDF, .opaque),
        ] as [(UInt16, RTPHeaderExtension.Kind)])
    func kindComesFromProfile(profile: UInt16, kind: RTPHeaderExtension.Kind) {
        #expect(RTPHeaderExtension(profile: profile, data: []).kind == kind)
    }

    @Test func oneByteID15StopsParsing() throws {
        // ID 1 (1 byte), then ID 15 with a length that would run past the end: ignored.
        let ext = RTPHeaderExtension(profile: 0xBEDE, data: [0x10, 0xAA, 0xFF, 0x20])
        #expect(try ext.elements() == [.init(id: 1, data: [0xAA])])
        #expect(ext.element(id: 2) == nil)
    }

    @Test func oneByteSkipsPaddingBeforeAndBetween() throws {
        let ext = RTPHeaderExtension(
            profile: 0xBEDE, data: [0x00, 0x10, 0xAA, 0x00, 0x00, 0x21, 0xBB, 0xCC, 0x00, 0x00, 0x00, 0x00])
        #expect(try ext.elements() == [.init(id: 1, data: [0xAA]), .init(id: 2, data: [0xBB, 0xCC])])
    }

    @Test func oneByteIDZeroWithLengthIsMalformed() {
        let ext = RTPHeaderExtension(profile: 0xBEDE, data: [0x01, 0xAA, 0xBB, 0x00])
        #expect(F.errorCode { _ = try ext.elements() } == .malformed)
        #expect(ext.element(id: 1) == nil)
    }

    @Test func oneByteElementPastTheEndIsTruncated() {
        // ID 1 says 4 bytes (L=3), only 3 follow.
        let ext = RTPHeaderExtension(profile: 0xBEDE, data: [0x13, 0xAA, 0xBB, 0xCC])
        #expect(F.errorCode { _ = try ext.elements() } == .truncated)
        #expect(ext.element(id: 1) == nil)
    }

    @Test func twoByteElementPastTheEndIsTruncated() {
        let missingLength = RTPHeaderExtension(profile: 0x1000, data: [0x00, 0x00, 0x00, 0x07])
        #expect(F.errorCode { _ = try missingLength.elements() } == .truncated)
        let shortData = RTPHeaderExtension(profile: 0x1000, data: [0x07, 0x03, 0xAA, 0xBB])
        #expect(F.errorCode { _ = try shortData.elements() } == .truncated)
    }

    @Test func twoByteAllowsIDsAbove14AndLongData() throws {
        let data = [UInt8](repeating: 0x5A, count: 255)
        let ext = try RTPHeaderExtension.twoByte([.init(id: 255, data: data), .init(id: 15, data: [])], appBits: 0xA)
        #expect(ext.profile == 0x100A)
        #expect(ext.data.count == 260)  // 2 + 255 + 2 = 259, padded to 260
        #expect(ext.data.prefix(2) == [0xFF, 0xFF])
        #expect(ext.data.suffix(3) == [0x0F, 0x00, 0x00])
        #expect(try ext.elements() == [.init(id: 255, data: data), .init(id: 15, data: [])])
    }

    @Test func buildersMatchTheRFCExamples() throws {
        // RFC 8285 §4.2 example packed without its two padding bytes, then zero-padded to a word.
        let one = try RTPHeaderExtension.oneByte([
            .init(id: 1, data: [0xA0]), .init(id: 2, data: [0xB0, 0xB1]), .init(id: 3, data: [0xC0, 0xC1, 0xC2, 0xC3]),
        ])
        #expect(one.profile == 0xBEDE)
        #expect(Array(one.data) == [0x10, 0xA0, 0x21, 0xB0, 0xB1, 0x33, 0xC0, 0xC1, 0xC2, 0xC3, 0x00, 0x00])
        // RFC 8285 §4.3 example, likewise.
        let two = try RTPHeaderExtension.twoByte(
            [.init(id: 1, data: []), .init(id: 2, data: [0xAA]), .init(id: 3, data: [0xB0, 0xB1, 0xB2, 0xB3])],
            appBits: 5
        )
        #expect(two.profile == 0x1005)
        #expect(Array(two.data) == [0x01, 0x00, 0x02, 0x01, 0xAA, 0x03, 0x04, 0xB0, 0xB1, 0xB2, 0xB3, 0x00])
        #expect(try RTPHeaderExtension.oneByte([]).data.isEmpty)
    }

    @Test func opaqueProfileKeepsDataAndHasNoElements() throws {
        let ext = RTPHeaderExtension(profile: 0xABCD, data: [1, 2, 3, 4])
        #expect(try ext.elements().isEmpty)
        #expect(ext.element(id: 1) == nil)
        let packet = RTPPacket(
            payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0, headerExtension: ext, payload: [])
        let decoded = try RTPPacket(decoding: packet.encoded())
        #expect(decoded.headerExtension == ext)
    }

    static let invalidOneByte: [(String, [RTPHeaderExtension.Element])] = [
        ("ID 0", [.init(id: 0, data: [1])]),
        ("ID 15", [.init(id: 15, data: [1])]),
        ("ID 16", [.init(id: 16, data: [1])]),
        ("empty data", [.init(id: 1, data: [])]),
        ("17 bytes", [.init(id: 1, data: [UInt8](repeating: 0, count: 17))]),
        ("second element bad", [.init(id: 1, data: [1]), .init(id: 2, data: [])]),
    ]

    @Test(arguments: invalidOneByte.indices)
    func oneByteBuilderRejects(index: Int) {
        let (name, elements) = Self.invalidOneByte[index]
        #expect(F.errorCode { _ = try RTPHeaderExtension.oneByte(elements) } == .invalidArgument, "\(name)")
    }

    static let invalidTwoByte: [(String, [RTPHeaderExtension.Element], UInt8)] = [
        ("ID 0", [.init(id: 0, data: [1])], 0),
        ("256 bytes", [.init(id: 1, data: [UInt8](repeating: 0, count: 256))], 0),
        ("appbits 16", [.init(id: 1, data: [1])], 16),
    ]

    @Test(arguments: invalidTwoByte.indices)
    func twoByteBuilderRejects(index: Int) {
        let (name, elements, appBits) = Self.invalidTwoByte[index]
        #expect(
            F.errorCode { _ = try RTPHeaderExtension.twoByte(elements, appBits: appBits) } == .invalidArgument,
            "\(name)")
    }

    @Test func oneByteBuilderAcceptsTheLimits() throws {
        let sixteen = [UInt8](0..<16)
        let ext = try RTPHeaderExtension.oneByte([.init(id: 14, data: sixteen), .init(id: 1, data: [9])])
        #expect(ext.data.first == 0xEF)  // ID 14, L=15
        #expect(try ext.elements() == [.init(id: 14, data: sixteen), .init(id: 1, data: [9])])
        #expect(ext.data.count == 20)  // 17 + 2 = 19, padded to 20
    }
}

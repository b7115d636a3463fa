import NIOCore
import PreflightCore
import PreflightEdge
import Testing

/// The call's codec on the media service: the edge never transcodes, but it stamps what it
/// originates on the codec's clock, records only the codec's payload type, and a bridge passes
/// only the call's codec and its RFC 4733 events.
@Suite struct MediaCodecTests {
    static let client = MediaServiceTests.client

    static func rtp(_ sequence: UInt16, payloadType: UInt8, ssrc: UInt32 = 7, step: UInt32 = 960) throws -> [UInt8] {
        try RTPPacket(
            payloadType: payloadType, sequenceNumber: sequence, timestamp: UInt32(sequence) &* step, ssrc: ssrc,
            payload: ArraySlice(repeating: 0x0B, count: 40)).encoded()
    }

    static func session(_ application: TestApplication, format: AudioPayloadFormat) throws -> MediaService {
        let service = MediaService()
        service.addSession(MediaServiceTests.credentials, application: application, format: format)
        _ = service.handle(try MediaServiceTests.check().1, from: client, at: 0)
        try #require(service.isVerified(client))
        return service
    }

    /// The echo keeps the payload type; the edge's own timestamps run at 48 kHz: 960 a frame.
    @Test func anOpusEchoRunsOnThe48kHzClock() throws {
        let service = try Self.session(.echo, format: .opus)
        var echoes: [RTPPacket] = []
        for sequence in 1...3 {
            let reply = try #require(service.handle(ByteBuffer(bytes: try Self.rtp(UInt16(sequence), payloadType: 111)), from: Self.client, at: Double(sequence) * 0.02))
            echoes.append(try RTPPacket(decoding: Array(reply.readableBytesView)))
        }
        #expect(echoes.allSatisfy { $0.payloadType == 111 })
        #expect(zip(echoes, echoes.dropFirst()).allSatisfy { $1.timestamp &- $0.timestamp == 960 })
    }

    @Test(arguments: [(AudioPayloadFormat.opus, UInt8(0)), (AudioPayloadFormat.pcmu, UInt8(111))])
    func aRecordingKeepsOnlyTheCallsPayloadType(format: AudioPayloadFormat, other: UInt8) throws {
        let service = try Self.session(.recordPlayback, format: format)
        for sequence in 1...10 {
            _ = service.handle(ByteBuffer(bytes: try Self.rtp(UInt16(sequence), payloadType: sequence % 2 == 0 ? format.payloadType : other)), from: Self.client, at: Double(sequence) * 0.02)
        }
        #expect(service.statistics(localUfrag: "edge")?.recordedFrames == 5)
        #expect(service.counters.droppedWrongPayloadType == 5)
    }

    /// An Opus bridge: Opus and digits go across, PCMU sent into it does not.
    @Test func anOpusBridgePassesOnlyOpusAndDigits() throws {
        let alice = MediaBridgeTests.alice
        let bob = MediaBridgeTests.bob
        let service = MediaService()
        try service.addBridgeLeg(alice, format: .opus)
        try service.addBridgeLeg(bob, format: .opus)
        _ = try #require(service.route(try MediaBridgeTests.check(alice), from: MediaBridgeTests.aliceAddress))
        _ = try #require(service.route(try MediaBridgeTests.check(bob), from: MediaBridgeTests.bobAddress))
        service.link("legA", "legB")
        // Bob sends, earning budget for what alice's leg forwards to him.
        for sequence in 1...6 { _ = service.route(ByteBuffer(bytes: try Self.rtp(UInt16(sequence), payloadType: 111, ssrc: 2)), from: MediaBridgeTests.bobAddress) }
        var forwarded: [RTPPacket] = []
        for (sequence, type) in [(1, UInt8(111)), (2, UInt8(111)), (3, UInt8(0)), (4, TelephoneEvent.defaultPayloadType)] {
            if let (bytes, destination) = service.route(ByteBuffer(bytes: try Self.rtp(UInt16(sequence), payloadType: type, ssrc: 1)), from: MediaBridgeTests.aliceAddress) {
                #expect(destination == MediaBridgeTests.bobAddress)
                forwarded.append(try RTPPacket(decoding: Array(bytes.readableBytesView)))
            }
        }
        #expect(forwarded.map(\.payloadType) == [111, 111, TelephoneEvent.defaultPayloadType])
        #expect(forwarded[1].timestamp &- forwarded[0].timestamp == 960)
        #expect(service.counters.droppedWrongPayloadType == 1)
    }
}

import PreflightCore
import Testing

/// The connectivity check's video test stream: a profile's bitrate in frame-sized bursts of
/// MTU-sized packets, and the header a receiver reads.
@Suite struct VideoTestPacketizerTests {
    static let frame = try! VideoFrame.filled(width: 64, height: 48, luma: 90)

    @Test(arguments: [100_000, 500_000, 1_000_000]) func aSecondOfFramesCarriesTheBitrate(_ bitrate: Int) throws {
        var packetizer = try VideoTestPacketizer(bitrate: bitrate)
        var bytes = 0
        var packets = 0
        for _ in 0..<30 {
            let payloads = packetizer.payloads(for: Self.frame)
            #expect(payloads.allSatisfy { $0.count <= 1200 })
            // Equal packets: no runt at the end of a burst.
            #expect(Set(payloads.map(\.count)).count == 1)
            bytes += payloads.reduce(0) { $0 + $1.count }
            packets += payloads.count
        }
        #expect(abs(bytes * 8 - bitrate) <= 30 * 8, "\(bytes * 8) bits in a second")
        #expect(packets == 30 * ((bitrate / 8 / 30 - 1) / 1200 + 1))
        #expect(packetizer.timestampIncrement == 3000 && packetizer.interval == .nanoseconds(33_333_333))
    }

    @Test func eachPacketNamesItsFrameAndPlace() throws {
        var packetizer = try VideoTestPacketizer(bitrate: 1_000_000)
        _ = packetizer.payloads(for: Self.frame)
        let payloads = packetizer.payloads(for: Self.frame)
        for (index, payload) in payloads.enumerated() {
            let header = try payload.withUnsafeBytes { try VideoTestPayload(parsing: $0) }
            #expect(header == VideoTestPayload(frameNumber: 1, index: UInt16(index), count: UInt16(payloads.count)))
            // The body is the frame's own luma.
            #expect(payload.dropFirst(VideoTestPayload.headerSize).allSatisfy { $0 == 90 })
        }
    }

    @Test(arguments: [[UInt8](), [0, 0, 0, 1, 0, 0, 0], [0, 0, 0, 1, 0, 0, 0, 0], [0, 0, 0, 1, 0, 2, 0, 2]])
    func badHeadersAre70002(_ bytes: [UInt8]) {
        let error = #expect(throws: PreflightError.self) { try bytes.withUnsafeBytes { try VideoTestPayload(parsing: $0) } }
        #expect(error?.code == .malformed)
    }

    @Test(arguments: [(99_999, 30, 1200), (1_000_001, 30, 1200), (500_000, 0, 1200), (500_000, 61, 1200), (500_000, 30, 199), (500_000, 30, 1201)])
    func outOfRangeSettingsAre70005(_ settings: (Int, Int, Int)) {
        let error = #expect(throws: PreflightError.self) {
            _ = try VideoTestPacketizer(bitrate: settings.0, frameRate: settings.1, maximumPayloadSize: settings.2)
        }
        #expect(error?.code == .invalidArgument)
    }
}

import PreflightCore
import Testing

/// ``BridgedPacket`` writes, without allocating, exactly the bytes the general encoder makes for
/// a bridged packet (``RTPPacket`` with ``MediaExtension/edgeExtension(sendMicroseconds:)``).
@Suite struct BridgedPacketTests {
    @Test(arguments: [UInt64(0), 987_654_321, .max], [0, 1, 160, 1200])
    func writesWhatTheGeneralEncoderWrites(sendTime: UInt64, payloadCount: Int) throws {
        let payload = (0..<payloadCount).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        for (marker, payloadType) in [(false, UInt8(0)), (true, UInt8(101)), (true, UInt8(0xFF))] {
            let packet = BridgedPacket(
                marker: marker, payloadType: payloadType, sequenceNumber: 0xA55A, timestamp: 0xDEAD_BEEF, ssrc: 0x1234_5678,
                edgeSendMicroseconds: sendTime)
            let expected = try RTPPacket(
                marker: marker, payloadType: payloadType & 0x7F, sequenceNumber: 0xA55A, timestamp: 0xDEAD_BEEF, ssrc: 0x1234_5678,
                headerExtension: MediaExtension.edgeExtension(sendMicroseconds: sendTime), payload: payload[...]
            ).encoded()
            var written = [UInt8](repeating: 0xCC, count: BridgedPacket.size(payloadCount: payloadCount) + 8)
            let count = written.withUnsafeMutableBytes { destination in
                payload.withUnsafeBytes { packet.write(payload: $0, to: destination) }
            }
            #expect(count == expected.count)
            #expect(Array(written.prefix(expected.count)) == expected)
            #expect(written.suffix(8).allSatisfy { $0 == 0xCC })  // nothing past the packet
            let parsed = expected.withUnsafeBytes { raw in (try? RTPHeader(parsing: raw)).flatMap { MediaExtension.edgeSendTime($0, in: raw) } }
            #expect(parsed == sendTime)
        }
    }

    @Test func refusesADestinationTooSmallAndWritesNothing() {
        let packet = BridgedPacket(marker: false, payloadType: 0, sequenceNumber: 1, timestamp: 2, ssrc: 3, edgeSendMicroseconds: 4)
        let payload = [UInt8](repeating: 0xFF, count: 160)
        var destination = [UInt8](repeating: 0, count: BridgedPacket.size(payloadCount: 160) - 1)
        let count = destination.withUnsafeMutableBytes { destination in
            payload.withUnsafeBytes { packet.write(payload: $0, to: destination) }
        }
        #expect(count == nil)
        #expect(destination.allSatisfy { $0 == 0 })
    }
}

import PreflightCore
import Testing

/// ``EchoPacket`` writes, without allocating, exactly the bytes the general encoder makes for an
/// echo (``RTPPacket`` with ``MediaExtension/echoExtension(_:)``), which the client parses.
@Suite struct EchoPacketTests {
    static let reports: [EchoReport] = [
        EchoReport(
            originalSequence: 0, holdMicroseconds: 0, clientSendMicroseconds: 0, edgeSendMicroseconds: 0,
            uplink: UplinkReport(expected: 0, received: 0, jitterMicroseconds: 0)),
        EchoReport(
            originalSequence: 0xBEEF, holdMicroseconds: 1234, clientSendMicroseconds: 0x0102_0304_0506_0708,
            edgeSendMicroseconds: 987_654_321, uplink: UplinkReport(expected: 500, received: 497, jitterMicroseconds: 2_500)),
        EchoReport(
            originalSequence: .max, holdMicroseconds: .max, clientSendMicroseconds: .max, edgeSendMicroseconds: .max,
            uplink: UplinkReport(expected: .max, received: .max, jitterMicroseconds: .max)),
    ]

    @Test(arguments: EchoPacketTests.reports, [0, 1, 160, 1200])
    func writesWhatTheGeneralEncoderWrites(report: EchoReport, payloadCount: Int) throws {
        let payload = (0..<payloadCount).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        for (marker, payloadType) in [(false, UInt8(0)), (true, UInt8(111)), (true, UInt8(0xFF))] {
            let packet = EchoPacket(
                marker: marker, payloadType: payloadType, sequenceNumber: 0xA55A, timestamp: 0xDEAD_BEEF, ssrc: 0x1234_5678,
                report: report)
            let expected = try RTPPacket(
                marker: marker, payloadType: payloadType & 0x7F, sequenceNumber: 0xA55A, timestamp: 0xDEAD_BEEF, ssrc: 0x1234_5678,
                headerExtension: MediaExtension.echoExtension(report), payload: payload[...]
            ).encoded()
            var written = [UInt8](repeating: 0xCC, count: EchoPacket.size(payloadCount: payloadCount) + 8)
            let count = written.withUnsafeMutableBytes { destination in
                payload.withUnsafeBytes { packet.write(payload: $0, to: destination) }
            }
            #expect(count == expected.count)
            #expect(Array(written.prefix(expected.count)) == expected)
            #expect(written.suffix(8).allSatisfy { $0 == 0xCC })  // nothing past the packet
            let parsed = expected.withUnsafeBytes { raw in
                (try? RTPHeader(parsing: raw)).flatMap { MediaExtension.echoReport($0, in: raw) }
            }
            #expect(parsed == report)
        }
    }

    @Test func refusesADestinationTooSmallAndWritesNothing() {
        let packet = EchoPacket(marker: false, payloadType: 0, sequenceNumber: 1, timestamp: 2, ssrc: 3, report: Self.reports[1])
        let payload = [UInt8](repeating: 0xFF, count: 160)
        var destination = [UInt8](repeating: 0, count: EchoPacket.size(payloadCount: 160) - 1)
        let count = destination.withUnsafeMutableBytes { destination in
            payload.withUnsafeBytes { packet.write(payload: $0, to: destination) }
        }
        #expect(count == nil)
        #expect(destination.allSatisfy { $0 == 0 })
    }
}

/// The send-time extensions written directly are the bytes the general one-byte encoder makes.
@Suite struct SendTimeExtensionTests {
    @Test(arguments: [UInt64(0), 1, 0x0102_0304_0506_0708, 1_764_300_000_000_000, .max])
    func writesWhatTheGeneralEncoderWrites(value: UInt64) throws {
        let bytes = (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) }
        let client = try RTPHeaderExtension.oneByte([.init(id: MediaExtension.sendTimeID, data: bytes)])
        let edge = try RTPHeaderExtension.oneByte([.init(id: MediaExtension.edgeSendTimeID, data: bytes)])
        #expect(MediaExtension.clientExtension(sendMicroseconds: value) == client)
        #expect(MediaExtension.edgeExtension(sendMicroseconds: value) == edge)
    }
}

import PreflightCore
import Testing

@Suite struct DTMFReceiverTests {
    typealias Report = DTMFReceiver.Report

    /// The sender's packets of `digits` as (timestamp, payload).
    static func packets(_ digits: String, startTimestamp: UInt32 = 1000) throws -> [(UInt32, [UInt8])] {
        try DTMFSender(digits: digits, startTime: 0, startTimestamp: startTimestamp).schedule.map { ($0.timestamp, $0.payload) }
    }

    static func feed(_ packets: [(UInt32, [UInt8])], to receiver: inout DTMFReceiver) throws -> [Report] {
        var reports: [Report] = []
        for (timestamp, payload) in packets {
            reports += try receiver.receive(timestamp: timestamp, payload: payload[...])
        }
        return reports
    }

    static let oneTwo: [Report] = [
        .started(event: 1, timestamp: 1000), .ended(event: 1, timestamp: 1000, duration: 800),
        .started(event: 2, timestamp: 2200), .ended(event: 2, timestamp: 2200, duration: 800),
    ]

    @Test func reportsEachDigitOnceWithItsDuration() throws {
        var receiver = DTMFReceiver()
        let reports = try Self.feed(try Self.packets("12"), to: &receiver)
        #expect(reports == Self.oneTwo)
        #expect(reports.compactMap(\.character) == ["1", "1", "2", "2"])
    }

    @Test func duplicatesAddNothing() throws {
        var receiver = DTMFReceiver()
        let packets = try Self.packets("12").flatMap { [$0, $0] }
        #expect(try Self.feed(packets, to: &receiver) == Self.oneTwo)
    }

    @Test func reorderedPacketsReportOnce() throws {
        var receiver = DTMFReceiver()
        let packets = try Self.packets("12")
        let order = [2, 0, 1, 6, 3, 5, 4, 7, 9, 8, 15, 10, 11, 12, 13, 14]
        #expect(try Self.feed(order.map { packets[$0] }, to: &receiver) == Self.oneTwo)
    }

    @Test func aLostFirstPacketStillReportsTheDigit() throws {
        var receiver = DTMFReceiver()
        let packets = try Self.packets("12")
        // Both marked first packets (0 and 8) and another update lost.
        let kept = packets.enumerated().filter { ![0, 1, 8].contains($0.offset) }.map(\.element)
        #expect(try Self.feed(kept, to: &receiver) == Self.oneTwo)
    }

    @Test func onlyEndPacketsStillReportTheDigit() throws {
        var receiver = DTMFReceiver()
        let ends = try Self.packets("5").suffix(3)
        #expect(try Self.feed(Array(ends), to: &receiver) == [
            .started(event: 5, timestamp: 1000), .ended(event: 5, timestamp: 1000, duration: 800),
        ])
    }

    @Test func latePacketsOfForgottenEventsAreIgnored() throws {
        var receiver = DTMFReceiver()
        let digits = String(repeating: "1", count: DTMFReceiver.rememberedEventCount + 4)
        let packets = try Self.packets(digits)
        let reports = try Self.feed(packets, to: &receiver)
        #expect(reports.count == 2 * (DTMFReceiver.rememberedEventCount + 4))
        // The first event's packets again: it is no longer remembered, but older than the newest.
        #expect(try Self.feed(Array(packets.prefix(8)), to: &receiver).isEmpty)
    }

    @Test func timestampsWrap() throws {
        var receiver = DTMFReceiver()
        let packets = try Self.packets("12", startTimestamp: UInt32.max - 500)
        let reports = try Self.feed(packets, to: &receiver)
        #expect(reports == [
            .started(event: 1, timestamp: UInt32.max - 500), .ended(event: 1, timestamp: UInt32.max - 500, duration: 800),
            .started(event: 2, timestamp: 699), .ended(event: 2, timestamp: 699, duration: 800),
        ])
    }

    @Test func packetsOfOtherPayloadTypesAreIgnored() throws {
        var receiver = DTMFReceiver(payloadType: 101)
        let audio = RTPPacket(payloadType: 0, sequenceNumber: 1, timestamp: 0, ssrc: 1, payload: [0x01, 0x0A, 0x00, 0xA0][...])
        #expect(try receiver.receive(audio).isEmpty)
        let event = RTPPacket(marker: true, payloadType: 101, sequenceNumber: 2, timestamp: 0, ssrc: 1, payload: [0x01, 0x0A, 0x00, 0xA0][...])
        #expect(try receiver.receive(event) == [.started(event: 1, timestamp: 0)])
    }

    @Test func refusesShortPayloads() {
        var receiver = DTMFReceiver()
        #expect { try receiver.receive(timestamp: 0, payload: [1, 2, 3][...]) } throws: {
            ($0 as? PreflightError)?.code == .truncated
        }
    }
}

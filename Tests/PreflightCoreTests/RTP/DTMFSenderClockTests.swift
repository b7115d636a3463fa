import PreflightCore
import Testing

/// Telephone events beside Opus count in the stream's 48 kHz clock (RFC 4733 §2.1): the same
/// schedule in time, six times the units, and tones that fit the 16-bit duration field.
@Suite struct DTMFSenderClockTests {
    static func configuration(clockRate: Int) -> DTMFSenderConfiguration {
        var configuration = DTMFSenderConfiguration()
        configuration.clockRate = clockRate
        return configuration
    }

    @Test(arguments: [8000, 16000, 48000])
    func theScheduleIsTheSameInTimeAtEveryRate(clockRate: Int) throws {
        let reference = try DTMFSender(digits: "1w2", startTime: 10, startTimestamp: 1000)
        let sender = try DTMFSender(digits: "1w2", startTime: 10, startTimestamp: 1000, configuration: Self.configuration(clockRate: clockRate))
        let scale = clockRate / 8000
        #expect(sender.schedule.count == reference.schedule.count)
        for (packet, original) in zip(sender.schedule, reference.schedule) {
            #expect(abs(packet.dueTime - original.dueTime) < 1e-9)
            #expect(packet.offset == original.offset * scale)
            #expect(packet.event.duration == original.event.duration * UInt16(scale))
            #expect(packet.timestamp == 1000 + (original.timestamp - 1000) * UInt32(scale))
            #expect(packet.event.isEnd == original.event.isEnd)
        }
        #expect(sender.endTime == reference.endTime)
    }

    @Test func aToneLongerThanTheDurationFieldIsRefusedAt48kHz() throws {
        var configuration = Self.configuration(clockRate: 48000)
        configuration.toneMilliseconds = 1365
        #expect(try DTMFSender(digits: "5", startTime: 0, startTimestamp: 0, configuration: configuration).schedule.last?.event.duration == 65520)
        configuration.toneMilliseconds = 1366
        let error = #expect(throws: PreflightError.self) {
            try DTMFSender(digits: "5", startTime: 0, startTimestamp: 0, configuration: configuration)
        }
        #expect(error?.code == .invalidArgument)
        // At 8 kHz the same tone fits.
        var narrow = DTMFSenderConfiguration()
        narrow.toneMilliseconds = 1366
        #expect(throws: Never.self) { try DTMFSender(digits: "5", startTime: 0, startTimestamp: 0, configuration: narrow) }
    }

    @Test(arguments: [0, 44100, -8000, 96000])
    func otherClockRatesAreRefused(clockRate: Int) {
        let error = #expect(throws: PreflightError.self) {
            try DTMFSender(digits: "5", startTime: 0, startTimestamp: 0, configuration: Self.configuration(clockRate: clockRate))
        }
        #expect(error?.code == .invalidArgument)
    }
}

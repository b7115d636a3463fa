import PreflightCore
import Testing

@Suite struct DTMFSenderTests {
    struct Expected: Equatable {
        var offset: Int
        var marker: Bool
        var event: UInt8
        var isEnd: Bool
        var duration: UInt16
        var timestamp: UInt32
    }

    static func expected(_ sender: DTMFSender) -> [Expected] {
        sender.schedule.map {
            Expected(offset: $0.offset, marker: $0.marker, event: $0.event.event, isEnd: $0.event.isEnd,
                     duration: $0.event.duration, timestamp: $0.timestamp)
        }
    }

    @Test func timelineOfOneWaitTwo() throws {
        let sender = try DTMFSender(digits: "1w2", startTime: 10, startTimestamp: 1000)
        // "1" at 0 ms: updates every 20 ms for its 100 ms, the end packet three times; 50 ms gap;
        // "w" 500 ms; "2" at 650 ms (5200 timestamp units).
        let one: [Expected] = [
            .init(offset: 0, marker: true, event: 1, isEnd: false, duration: 160, timestamp: 1000),
            .init(offset: 160, marker: false, event: 1, isEnd: false, duration: 320, timestamp: 1000),
            .init(offset: 320, marker: false, event: 1, isEnd: false, duration: 480, timestamp: 1000),
            .init(offset: 480, marker: false, event: 1, isEnd: false, duration: 640, timestamp: 1000),
            .init(offset: 640, marker: false, event: 1, isEnd: false, duration: 800, timestamp: 1000),
            .init(offset: 800, marker: false, event: 1, isEnd: true, duration: 800, timestamp: 1000),
            .init(offset: 960, marker: false, event: 1, isEnd: true, duration: 800, timestamp: 1000),
            .init(offset: 1120, marker: false, event: 1, isEnd: true, duration: 800, timestamp: 1000),
        ]
        let two: [Expected] = [
            .init(offset: 5200, marker: true, event: 2, isEnd: false, duration: 160, timestamp: 6200),
            .init(offset: 5360, marker: false, event: 2, isEnd: false, duration: 320, timestamp: 6200),
            .init(offset: 5520, marker: false, event: 2, isEnd: false, duration: 480, timestamp: 6200),
            .init(offset: 5680, marker: false, event: 2, isEnd: false, duration: 640, timestamp: 6200),
            .init(offset: 5840, marker: false, event: 2, isEnd: false, duration: 800, timestamp: 6200),
            .init(offset: 6000, marker: false, event: 2, isEnd: true, duration: 800, timestamp: 6200),
            .init(offset: 6160, marker: false, event: 2, isEnd: true, duration: 800, timestamp: 6200),
            .init(offset: 6320, marker: false, event: 2, isEnd: true, duration: 800, timestamp: 6200),
        ]
        #expect(Self.expected(sender) == one + two)
        #expect(sender.schedule.map(\.dueTime) == [
            10.0, 10.02, 10.04, 10.06, 10.08, 10.1, 10.12, 10.14,
            10.65, 10.67, 10.69, 10.71, 10.73, 10.75, 10.77, 10.79,
        ])
        #expect(sender.schedule.allSatisfy { $0.payloadType == 101 && $0.event.volume == 10 })
        #expect(sender.schedule.allSatisfy { (try? $0.event.encoded()) == $0.payload })
        #expect(sender.endOffset == 6400)
        #expect(sender.endTime == 10.8)
    }

    @Test func pollHandsOutEachPacketOnceWhenDue() throws {
        var sender = try DTMFSender(digits: "1w2", startTime: 10, startTimestamp: 1000)
        #expect(sender.nextDueTime == 10)
        #expect(sender.poll(now: 9.99).isEmpty)
        #expect(sender.poll(now: 10).map(\.offset) == [0])
        #expect(sender.poll(now: 10.05).map(\.offset) == [160, 320])
        #expect(sender.poll(now: 10.05).isEmpty)
        #expect(sender.nextDueTime == 10.06)
        #expect(sender.poll(now: 10.5).map(\.offset) == [480, 640, 800, 960, 1120])
        #expect(!sender.isFinished)
        #expect(sender.poll(now: 100).count == 8)
        #expect(sender.isFinished)
        #expect(sender.nextDueTime == nil)
        #expect(sender.poll(now: 200).isEmpty)
    }

    @Test func saysWhenAnEventPlays() throws {
        let sender = try DTMFSender(digits: "1w2", startTime: 10, startTimestamp: 1000)
        let playing: [(Double, Bool)] = [
            (9.99, false), (10, true), (10.08, true), (10.14, true), (10.145, false), (10.4, false),
            (10.649, false), (10.65, true), (10.79, true), (10.8, false),
        ]
        for (time, expected) in playing {
            #expect(sender.isEventInProgress(at: time) == expected, "at \(time)")
        }
    }

    @Test func configurationApplies() throws {
        var configuration = DTMFSenderConfiguration()
        configuration.payloadType = 96
        configuration.volume = 7
        configuration.toneMilliseconds = 50
        configuration.endPacketCount = 1
        let sender = try DTMFSender(digits: "#", startTime: 0, startTimestamp: UInt32.max, configuration: configuration)
        // 50 ms in 20 ms packets: durations 160, 320, 400 (the last update is cut at the tone's end).
        #expect(sender.schedule.map(\.event.duration) == [160, 320, 400, 400])
        #expect(sender.schedule.map(\.event.isEnd) == [false, false, false, true])
        #expect(sender.schedule.allSatisfy { $0.payloadType == 96 && $0.event.volume == 7 && $0.event.event == 11 })
        #expect(sender.schedule.allSatisfy { $0.timestamp == UInt32.max })
    }

    @Test func aShortGapKeepsEachDigitsPacketsInOrder() throws {
        var configuration = DTMFSenderConfiguration()
        configuration.gapMilliseconds = 0
        let sender = try DTMFSender(digits: "12", startTime: 0, startTimestamp: 0, configuration: configuration)
        let offsets = sender.schedule.map(\.offset)
        #expect(offsets == offsets.sorted())
        #expect(sender.schedule.filter { $0.event.event == 2 }.first?.marker == true)
        #expect(sender.schedule.count == 16)
    }

    @Test(arguments: ["12x", "A", "1 2", "", "١"])
    func refusesInvalidDigits(digits: String) {
        #expect {
            try DTMFSender(digits: digits, startTime: 0, startTimestamp: 0)
        } throws: { error in
            guard let error = error as? PreflightError, error.code == .invalidArgument else { return false }
            return digits.isEmpty || error.message.contains("is not a digit")
        }
    }

    @Test func namesTheInvalidCharacter() {
        #expect {
            try DTMFSender(digits: "12x", startTime: 0, startTimestamp: 0)
        } throws: { ($0 as? PreflightError)?.message.contains("\"x\"") == true }
    }

    @Test func limitsTheLength() throws {
        let longest = String(repeating: "1", count: 256)
        #expect(try DTMFSender(digits: longest, startTime: 0, startTimestamp: 0).schedule.count == 256 * 8)
        #expect { try DTMFSender(digits: longest + "1", startTime: 0, startTimestamp: 0) } throws: {
            ($0 as? PreflightError)?.code == .invalidArgument
        }
    }

    @Test func refusesConfigurationsOutOfRange() {
        var configurations: [DTMFSenderConfiguration] = []
        var configuration = DTMFSenderConfiguration()
        configuration.volume = 64
        configurations.append(configuration)
        configuration = DTMFSenderConfiguration()
        configuration.payloadType = 128
        configurations.append(configuration)
        configuration = DTMFSenderConfiguration()
        configuration.packetIntervalMilliseconds = 0
        configurations.append(configuration)
        configuration = DTMFSenderConfiguration()
        configuration.toneMilliseconds = Int.max
        configurations.append(configuration)
        for configuration in configurations {
            #expect { try DTMFSender(digits: "1", startTime: 0, startTimestamp: 0, configuration: configuration) } throws: {
                ($0 as? PreflightError)?.code == .invalidArgument
            }
        }
    }
}

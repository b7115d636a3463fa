import PreflightCore
import Testing

@Suite struct ReceiveStatisticsJitterTests {
    @Test(arguments: [8000, 48000])
    func constantTransitHasZeroJitter(clockRate: Int) {
        var stats = ReceiveStatistics(minSequential: 1)
        let step = UInt32(clockRate / 50)  // 20 ms of timestamp
        var timestamp = UInt32.max - 3 * step  // crosses the 32-bit timestamp wrap
        for index in 0..<50 {
            _ = stats.record(
                sequenceNumber: UInt16(index), rtpTimestamp: timestamp,
                arrival: 100 + Double(index) * 0.02, clockRate: clockRate)
            timestamp &+= step
        }
        #expect(stats.jitter == 0)
        #expect(stats.jitterMilliseconds.magnitude < 1e-6)
    }

    /// Transit alternates +d, −d: every |D| is 2d, so J_n = J_{n−1} + (2d − J_{n−1})/16.
    @Test(arguments: [8000, 48000])
    func alternatingTransitFollowsTheRecurrence(clockRate: Int) {
        var stats = ReceiveStatistics(minSequential: 1)
        let halfSwingSeconds = 0.005  // d = 5 ms
        let packets = 200
        for index in 0..<packets {
            let offset = index.isMultiple(of: 2) ? halfSwingSeconds : -halfSwingSeconds
            _ = stats.record(
                sequenceNumber: UInt16(index), rtpTimestamp: UInt32(index * clockRate / 50),
                arrival: Double(index) * 0.02 + offset, clockRate: clockRate)
        }
        // Independent recurrence in timestamp units, 199 updates (the first packet sets the reference).
        let absD = 2 * halfSwingSeconds * Double(clockRate)
        var expected = 0.0
        for _ in 1..<packets { expected += (absD - expected) / 16 }
        // Closed form of the same recurrence: 2d(1 − (15/16)^n) → 2d.
        var decay = 1.0
        for _ in 1..<packets { decay *= 15.0 / 16.0 }
        #expect((expected - absD * (1 - decay)).magnitude < 1e-6)
        #expect((Double(stats.jitter) - expected.rounded(.down)).magnitude <= 1)
        // In ms the value is independent of the clock rate: → 10 ms.
        #expect((stats.jitterMilliseconds - expected / Double(clockRate) * 1000).magnitude < 1e-6)
        #expect((stats.jitterMilliseconds - 10).magnitude < 1e-3)
    }

    @Test func millisecondConversion() {
        // Arrivals 62.5 ms apart for 20 ms of timestamp (binary-exact values).
        // 8 kHz: D = 0.0625·8000 − 160 = 340 units, J = 340/16 = 21.25 units = 2.65625 ms.
        var narrow = ReceiveStatistics(minSequential: 1)
        _ = narrow.record(sequenceNumber: 1, rtpTimestamp: 0, arrival: 0, clockRate: 8000)
        _ = narrow.record(sequenceNumber: 2, rtpTimestamp: 160, arrival: 0.0625, clockRate: 8000)
        #expect(narrow.jitter == 21)
        #expect((narrow.jitterMilliseconds - 2.65625).magnitude < 1e-9)
        #expect(narrow.lastDelayVariationMilliseconds.map { ($0 - 42.5).magnitude < 1e-9 } == true)

        // 48 kHz: D = 0.0625·48000 − 960 = 2040 units, J = 127.5 units = 2.65625 ms.
        var wide = ReceiveStatistics(minSequential: 1)
        _ = wide.record(sequenceNumber: 1, rtpTimestamp: 0, arrival: 0, clockRate: 48000)
        _ = wide.record(sequenceNumber: 2, rtpTimestamp: 960, arrival: 0.0625, clockRate: 48000)
        #expect(wide.jitter == 127)
        #expect((wide.jitterMilliseconds - 2.65625).magnitude < 1e-9)
    }

    /// RFC 3550 A.8 compares each packet with the one that arrived just before it, in arrival
    /// order: a late (reordered) packet counts, a duplicate does not. The accuracy benchmark showed
    /// that skipping late packets reads 24 ms of jitter on a path with 41 ms (rtt300-j40).
    @Test func jitterFollowsArrivalOrderAndSkipsDuplicates() {
        var stats = ReceiveStatistics(minSequential: 1)
        _ = stats.record(sequenceNumber: 1, rtpTimestamp: 0, arrival: 0, clockRate: 8000)
        _ = stats.record(sequenceNumber: 3, rtpTimestamp: 320, arrival: 0.04, clockRate: 8000)
        #expect(stats.jitter == 0)
        // Late: D = 0.01·8000 − (160 − 320) = 240 units, J = 15.
        #expect(stats.record(sequenceNumber: 2, rtpTimestamp: 160, arrival: 0.05, clockRate: 8000) == .reordered)
        #expect(stats.jitter == 15)
        #expect(stats.lastDelayVariationMilliseconds.map { ($0 - 30).magnitude < 1e-9 } == true)
        // A duplicate changes nothing.
        #expect(stats.record(sequenceNumber: 3, rtpTimestamp: 320, arrival: 0.055, clockRate: 8000) == .duplicate)
        #expect(stats.jitter == 15)
        #expect(stats.lastDelayVariationMilliseconds == nil)
        // Next against the late packet: D = 0.01·8000 − (480 − 160) = −240, J = 15 + 225/16 = 29.06.
        _ = stats.record(sequenceNumber: 4, rtpTimestamp: 480, arrival: 0.06, clockRate: 8000)
        #expect(stats.jitter == 29)
    }

    @Test func hostileTimesDoNotTrap() {
        var stats = ReceiveStatistics(minSequential: 1)
        _ = stats.record(sequenceNumber: 1, rtpTimestamp: 0, arrival: .nan, clockRate: 8000)
        _ = stats.record(sequenceNumber: 2, rtpTimestamp: 0, arrival: .infinity, clockRate: 0)
        _ = stats.record(sequenceNumber: 3, rtpTimestamp: 0, arrival: 0, clockRate: -5)
        _ = stats.record(sequenceNumber: 4, rtpTimestamp: 0, arrival: 0, clockRate: 8000)
        _ = stats.record(sequenceNumber: 5, rtpTimestamp: 0, arrival: 1e300, clockRate: 8000)
        _ = stats.record(sequenceNumber: 6, rtpTimestamp: 0, arrival: -1e300, clockRate: 8000)
        #expect(stats.received == 6)
        #expect(stats.jitter <= UInt32.max)
        #expect(!stats.jitterMilliseconds.isNaN)
    }
}

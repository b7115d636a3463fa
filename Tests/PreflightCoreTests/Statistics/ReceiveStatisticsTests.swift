import PreflightCore
import PropertyBased
import Testing

/// Feeds `sequenceNumbers` at 20 ms intervals with matching 8 kHz timestamps (constant transit).
private func feed(
    _ sequenceNumbers: [UInt16], into stats: inout ReceiveStatistics
) -> [ReceiveStatistics.Outcome] {
    var outcomes: [ReceiveStatistics.Outcome] = []
    for (index, seq) in sequenceNumbers.enumerated() {
        outcomes.append(
            stats.record(
                sequenceNumber: seq, rtpTimestamp: UInt32(seq) &* 160,
                arrival: Double(index) * 0.02, clockRate: 8000))
    }
    return outcomes
}

@Suite struct ReceiveStatisticsSequenceTests {
    @Test func inOrderStreamHasNoLoss() {
        var stats = ReceiveStatistics()
        let outcomes = feed(Array(1000...1099), into: &stats)
        // A.1 probation: the first packet validates nothing yet, the second starts counting.
        #expect(outcomes[0] == .probation)
        #expect(outcomes.dropFirst().allSatisfy { $0 == .accepted })
        #expect(stats.isValid)
        #expect(stats.received == 99)
        #expect(stats.expected == 99)
        #expect(stats.lost == 0)
        #expect(stats.fractionLostPercent == 0)
        #expect(stats.highestExtendedSequence == 1099)
    }

    @Test func wrapAt65535ExtendsWithoutLoss() {
        var stats = ReceiveStatistics(minSequential: 1)
        var sequence: [UInt16] = Array(65530...65535)
        sequence += Array(0...10)
        _ = feed(sequence, into: &stats)
        // Extended numbers go 65535 → 65536 (cycle 1, seq 0) … 65546.
        #expect(stats.highestExtendedSequence == 65536 + 10)
        #expect(stats.extendedHighestSequenceNumber == 0x0001_000A)
        #expect(stats.expected == 17)
        #expect(stats.received == 17)
        #expect(stats.lost == 0)
    }

    @Test func gapOfFiveIsFiveLost() {
        var stats = ReceiveStatistics(minSequential: 1)
        _ = feed(Array(1...10) + Array(16...20), into: &stats)
        #expect(stats.expected == 20)
        #expect(stats.received == 15)
        #expect(stats.lost == 5)
        #expect(stats.fractionLostPercent == 25)
    }

    @Test func duplicatesAreNotLossNorReceived() {
        var stats = ReceiveStatistics(minSequential: 1)
        let outcomes = feed([1, 2, 3, 3, 4, 5, 2], into: &stats)
        #expect(outcomes[3] == .duplicate)  // duplicate of the highest
        #expect(outcomes[6] == .duplicate)  // late duplicate, found in the window
        #expect(stats.duplicates == 2)
        #expect(stats.reordered == 0)
        #expect(stats.received == 5)
        #expect(stats.lost == 0)
    }

    @Test func singleDuplicate() {
        var stats = ReceiveStatistics(minSequential: 1)
        _ = feed([7, 8, 9, 9, 10], into: &stats)
        #expect(stats.duplicates == 1)
        #expect(stats.lost == 0)
        #expect(stats.received == 4)
    }

    @Test func reorderingIsNotLoss() {
        var stats = ReceiveStatistics(minSequential: 1)
        let outcomes = feed([1, 2, 4, 3, 5], into: &stats)
        #expect(outcomes == [.accepted, .accepted, .accepted, .reordered, .accepted])
        #expect(stats.reordered == 1)
        #expect(stats.duplicates == 0)
        #expect(stats.lost == 0)
        #expect(stats.expected == 5)
        #expect(stats.received == 5)
    }

    @Test func reorderedAcrossTheWrap() {
        var stats = ReceiveStatistics(minSequential: 1)
        let outcomes = feed([65534, 0, 65535, 1], into: &stats)
        #expect(outcomes == [.accepted, .accepted, .reordered, .accepted])
        #expect(stats.lost == 0)
        #expect(stats.expected == 4)
        #expect(stats.highestExtendedSequence == 65537)
    }

    @Test func latePacketBeforeTheFirstLowersTheBase() {
        var stats = ReceiveStatistics(minSequential: 1)
        let outcomes = feed([10, 11, 8, 12], into: &stats)
        #expect(outcomes[2] == .reordered)
        // 8…12 expected (5), 8, 10, 11, 12 received: 9 is lost.
        #expect(stats.expected == 5)
        #expect(stats.received == 4)
        #expect(stats.lost == 1)
    }

    @Test func latePacketBeyondMisorderIsIgnored() {
        var stats = ReceiveStatistics(minSequential: 1)
        _ = feed(Array(1...200), into: &stats)
        // 150 behind the highest: more than MAX_MISORDER (100), so A.1 treats it as a bad jump.
        let late = stats.record(sequenceNumber: 50, rtpTimestamp: 50 * 160, arrival: 10, clockRate: 8000)
        #expect(late == .badJump)
        #expect(stats.received == 200)
        #expect(stats.lost == 0)
        #expect(stats.discarded == 1)
        // 99 behind is still reordering (here: a duplicate).
        let inWindow = stats.record(sequenceNumber: 101, rtpTimestamp: 101 * 160, arrival: 10, clockRate: 8000)
        #expect(inWindow == .duplicate)
        let next = stats.record(sequenceNumber: 201, rtpTimestamp: 201 * 160, arrival: 10.02, clockRate: 8000)
        #expect(next == .accepted)
        #expect(stats.received == 201)
    }

    @Test func probationRequiresSequentialPackets() {
        var stats = ReceiveStatistics()
        #expect(stats.expected == 0)
        let outcomes = feed([10, 20, 21, 22], into: &stats)
        // 10: probation; 20: not 11, probation restarts; 21 follows 20: valid, base 21.
        #expect(outcomes == [.probation, .probation, .accepted, .accepted])
        #expect(stats.received == 2)
        #expect(stats.expected == 2)
        #expect(stats.discarded == 2)

        var three = ReceiveStatistics(minSequential: 3)
        #expect(feed([5, 6, 7, 8], into: &three) == [.probation, .probation, .accepted, .accepted])
        #expect(three.expected == 2)
    }

    @Test func largeJumpThenResync() {
        var stats = ReceiveStatistics(minSequential: 1)
        _ = feed(Array(1...10), into: &stats)
        let jump = stats.record(sequenceNumber: 5000, rtpTimestamp: 0, arrival: 1, clockRate: 8000)
        #expect(jump == .badJump)
        #expect(stats.received == 10)
        // The next packet follows the jump: A.1 takes it as a restart and counts from it.
        let resync = stats.record(sequenceNumber: 5001, rtpTimestamp: 160, arrival: 1.02, clockRate: 8000)
        #expect(resync == .restarted)
        #expect(stats.restarts == 1)
        #expect(stats.received == 1)
        #expect(stats.expected == 1)
        #expect(stats.record(sequenceNumber: 5002, rtpTimestamp: 320, arrival: 1.04, clockRate: 8000) == .accepted)
        #expect(stats.lost == 0)
        #expect(stats.highestExtendedSequence == 5002)
    }

    @Test func largeJumpNotConfirmedIsIgnored() {
        var stats = ReceiveStatistics(minSequential: 1)
        _ = feed(Array(1...10), into: &stats)
        #expect(stats.record(sequenceNumber: 40000, rtpTimestamp: 0, arrival: 1, clockRate: 8000) == .badJump)
        #expect(stats.record(sequenceNumber: 11, rtpTimestamp: 1760, arrival: 1.02, clockRate: 8000) == .accepted)
        #expect(stats.restarts == 0)
        #expect(stats.expected == 11)
        #expect(stats.lost == 0)
    }

    @Test func gapJustBelowMaxDropoutIsLoss() {
        var stats = ReceiveStatistics(minSequential: 1)
        _ = feed([1], into: &stats)
        // 1 + 2999: delta 2999 < MAX_DROPOUT, in order with a gap of 2998.
        #expect(stats.record(sequenceNumber: 3000, rtpTimestamp: 0, arrival: 1, clockRate: 8000) == .accepted)
        #expect(stats.lost == 2998)
        // delta 3000 from 3000 is a bad jump.
        #expect(stats.record(sequenceNumber: 6000, rtpTimestamp: 0, arrival: 2, clockRate: 8000) == .badJump)
    }

    @Test func intervalFractions() {
        var stats = ReceiveStatistics(minSequential: 1)
        _ = feed(Array(1...10), into: &stats)
        let first = stats.closeInterval()
        #expect(first == .init(expected: 10, received: 10, lost: 0, fractionLost: 0, fractionLostPercent: 0))

        // 11…30 expected (20); 4 missing: 16 received.
        let second = Array(11...30).filter { ![13, 17, 22, 29].contains($0) }.map { UInt16($0) }
        _ = feed(second, into: &stats)
        let interval = stats.closeInterval()
        #expect(interval.expected == 20)
        #expect(interval.received == 16)
        #expect(interval.lost == 4)
        #expect(interval.fractionLost == 51)  // ⌊4·256/20⌋ = ⌊51.2⌋
        #expect(interval.fractionLostPercent == 20)
        #expect(stats.lost == 4)
        #expect(stats.fractionLostPercent == 4.0 / 30.0 * 100)

        // A late packet of the previous interval: loss in this interval is clamped to 0.
        _ = feed([17, 31], into: &stats)
        let third = stats.closeInterval()
        #expect(third.expected == 1)
        #expect(third.received == 2)
        #expect(third.lost == 0)
        #expect(third.fractionLost == 0)
        #expect(stats.lost == 3)

        let empty = stats.closeInterval()
        #expect(empty.expected == 0 && empty.fractionLost == 0 && empty.fractionLostPercent == 0)
    }

    @Test func randomArrivalsNeverCountArrivedPacketsAsLost() async {
        await propertyCheck(
            count: 200, input: Gen.uint16(), Gen.int(in: 0...99).array(of: 1...300)
        ) { base, offsets in
            var stats = ReceiveStatistics(minSequential: 1)
            for (index, offset) in offsets.enumerated() {
                _ = stats.record(
                    sequenceNumber: base &+ UInt16(offset), rtpTimestamp: UInt32(offset) * 160,
                    arrival: Double(index) * 0.02, clockRate: 8000)
            }
            let distinct = Set(offsets)
            let span = (offsets.max() ?? 0) - (offsets.min() ?? 0) + 1
            #expect(stats.expected == span)
            #expect(stats.received == distinct.count)
            #expect(stats.lost == span - distinct.count)
            #expect(stats.duplicates == offsets.count - distinct.count)
        }
    }
}

import Foundation
import PreflightCore
import Testing

/// A sample at second `index` of a test (ms timestamps with a fraction the records truncate), with
/// healthy defaults: low RTT and jitter, good MOS, no loss, and levels that vary a lot
/// (alternating 0 / 2000: population standard deviation 1000 > 983.01, so no audio warning).
func sample(
    _ index: Int,
    rtt: Double = 50,
    jitter: Double = 5,
    mos: Double = 4.4,
    loss: Double = 0,
    input: Int? = nil,
    output: Int? = nil
) -> StatsSample {
    let alternating = index % 2 == 0 ? 2000 : 0
    return StatsSample(
        timestamp: 1_731_699_120_000.75 + Double(index - 1) * 1000,
        rtt: rtt,
        jitter: jitter,
        mos: mos,
        packetsLostFraction: loss,
        audioInputLevel: input ?? alternating,
        audioOutputLevel: output ?? alternating
    )
}

/// The whole-millisecond timestamp of `sample(index)`.
func millis(_ index: Int) -> Int64 { 1_731_699_120_000 + Int64(index - 1) * 1000 }

/// The `%f` text of `value` from C's printf (an oracle independent of the engine's formatter).
func printf(_ value: Double) -> String { String(format: "%f", value) }

/// One of the three "3 of the last 5" rules, described so one table drives all three.
struct ThreeOfFiveRule: Sendable, CustomStringConvertible {
    var warning: QualityWarning
    var bad: Double
    var good: Double
    var atThreshold: Double
    var threshold: String
    var set: @Sendable (inout StatsSample, Double) -> Void
    var description: String { warning.rawValue }

    func sample(_ index: Int, _ value: Double) -> StatsSample {
        var s = PreflightCoreTests.sample(index)
        set(&s, value)
        return s
    }

    static let all: [ThreeOfFiveRule] = [
        ThreeOfFiveRule(warning: .highRTT, bad: 500, good: 100, atThreshold: 400, threshold: "400.000000",
                        set: { $0.rtt = $1 }),
        ThreeOfFiveRule(warning: .highJitter, bad: 45, good: 3, atThreshold: 30, threshold: "30.000000",
                        set: { $0.jitter = $1 }),
        ThreeOfFiveRule(warning: .lowMOS, bad: 2.5, good: 4.2, atThreshold: 3.5, threshold: "3.500000",
                        set: { $0.mos = $1 }),
    ]
}

@Suite struct WarningsEngineThreeOfFiveTests {
    /// Feeds `values` as samples 1, 2, …; returns the updates.
    func feed(_ rule: ThreeOfFiveRule, _ values: [Double], into engine: inout WarningsEngine) -> [WarningsUpdate] {
        values.enumerated().map { engine.ingest(rule.sample($0.offset + 1, $0.element)) }
    }

    @Test(arguments: ThreeOfFiveRule.all)
    func twoOfFiveBadDoesNotRaise(rule: ThreeOfFiveRule) {
        var engine = WarningsEngine()
        let g = rule.good, b = rule.bad
        _ = feed(rule, [b, g, g, b, g, g, b, g, g, b], into: &engine)
        // Every window of five holds at most two bad values.
        #expect(engine.current.isEmpty)
        #expect(engine.raisedRecords.isEmpty)
    }

    @Test(arguments: ThreeOfFiveRule.all)
    func threeOfFiveBadRaisesAtTheThird(rule: ThreeOfFiveRule) throws {
        var engine = WarningsEngine()
        let g = rule.good, b = rule.bad
        let updates = feed(rule, [b, g, b, g, b], into: &engine)
        #expect(updates[0...3].allSatisfy { !$0.didChange })
        let last = try #require(updates.last)
        #expect(last.current == [rule.warning])
        #expect(last.previous.isEmpty)
        #expect(last.didChange)
        #expect(last.raised == [WarningRecord(name: rule.warning.rawValue, values: printf(b),
                                              threshold: rule.threshold, timestamp: millis(5))])
        #expect(engine.raisedRecords == last.raised)
    }

    @Test(arguments: ThreeOfFiveRule.all)
    func raisesBeforeTheWindowIsFull(rule: ThreeOfFiveRule) {
        var engine = WarningsEngine()
        let updates = feed(rule, [rule.bad, rule.bad, rule.bad], into: &engine)
        #expect(updates[1].current.isEmpty)
        #expect(updates[2].current == [rule.warning])
        #expect(updates[2].raised.map(\.timestamp) == [millis(3)])
    }

    @Test(arguments: ThreeOfFiveRule.all)
    func valueAtTheThresholdIsNotBad(rule: ThreeOfFiveRule) {
        var engine = WarningsEngine()
        _ = feed(rule, Array(repeating: rule.atThreshold, count: 8), into: &engine)
        #expect(engine.current.isEmpty)
        // Two bad values plus threshold values are still only two of five.
        _ = feed(rule, [rule.bad, rule.atThreshold, rule.bad, rule.atThreshold, rule.atThreshold], into: &engine)
        #expect(engine.current.isEmpty)
    }

    @Test(arguments: ThreeOfFiveRule.all)
    func clearingNeedsAllFiveGood(rule: ThreeOfFiveRule) {
        var engine = WarningsEngine()
        let g = rule.good, b = rule.bad
        let updates = feed(rule, [b, b, b, g, g, g, g, g], into: &engine)
        #expect(updates[2].current == [rule.warning])
        // Samples 4–7: windows [b b b g g], [b b g g g], [b g g g g]: 4 of 5 good does not clear.
        #expect(updates[3...6].allSatisfy { $0.current == [rule.warning] && $0.cleared.isEmpty })
        // Sample 8: [g g g g g] clears.
        #expect(updates[7].current.isEmpty)
        #expect(updates[7].previous == [rule.warning])
        #expect(updates[7].cleared == [ClearedWarningRecord(name: rule.warning.rawValue, timestamp: millis(8))])
        #expect(engine.clearedRecords == updates[7].cleared)
    }

    @Test(arguments: ThreeOfFiveRule.all)
    func valueAtTheThresholdPreventsClearing(rule: ThreeOfFiveRule) {
        var engine = WarningsEngine()
        let g = rule.good, b = rule.bad
        _ = feed(rule, [b, b, b, g, g, g, g, rule.atThreshold, g, g, g, g], into: &engine)
        // Windows ending at samples 8–12 all hold the threshold value.
        #expect(engine.current == [rule.warning])
        let update = engine.ingest(rule.sample(13, g))
        #expect(update.cleared.map(\.timestamp) == [millis(13)])
    }

    @Test(arguments: ThreeOfFiveRule.all)
    func raisedAgainAfterClearingAddsANewRecord(rule: ThreeOfFiveRule) {
        var engine = WarningsEngine()
        let g = rule.good, b = rule.bad
        _ = feed(rule, [b, b, b, g, g, g, g, g, b, b, b], into: &engine)
        #expect(engine.raisedRecords.map(\.timestamp) == [millis(3), millis(11)])
        #expect(engine.clearedRecords.map(\.timestamp) == [millis(8)])
        #expect(engine.current == [rule.warning])
    }

    @Test func recordValueIsTheMeanOfTheBadSamples() {
        var engine = WarningsEngine()
        // RTT window [100, 401, 500, 399, 650]: above 400 are 401, 500, 650, mean 517.
        for (i, rtt) in [100.0, 401, 500, 399, 650].enumerated() {
            _ = engine.ingest(sample(i + 1, rtt: rtt))
        }
        #expect(engine.raisedRecords == [WarningRecord(name: "high-rtt", values: "517.000000",
                                                       threshold: "400.000000", timestamp: millis(5))])
        // MOS window [3.4, 3.6, 1.0, 3.5, 2.9]: below 3.5 are 3.4, 1.0, 2.9, mean 2.433333…
        var mosEngine = WarningsEngine()
        for (i, mos) in [3.4, 3.6, 1.0, 3.5, 2.9].enumerated() {
            _ = mosEngine.ingest(sample(i + 1, mos: mos))
        }
        #expect(mosEngine.raisedRecords.map(\.values) == ["2.433333"])
        #expect(mosEngine.raisedRecords.map(\.threshold) == ["3.500000"])
    }
}

@Suite struct WarningsEnginePacketLossTests {
    func feed(_ losses: [Double], from first: Int = 1, into engine: inout WarningsEngine) -> [WarningsUpdate] {
        losses.enumerated().map { engine.ingest(sample(first + $0.offset, loss: $0.element)) }
    }

    @Test func averageOfExactlyThreeDoesNotRaise() {
        var engine = WarningsEngine()
        _ = feed(Array(repeating: 3.0, count: 20), into: &engine)
        #expect(engine.current.isEmpty)
    }

    @Test func averageAboveThreeRaises() throws {
        var engine = WarningsEngine()
        let updates = feed(Array(repeating: 3.01, count: 7), into: &engine)
        #expect(updates[0...5].allSatisfy { $0.current.isEmpty })
        let last = try #require(updates.last)
        #expect(last.current == [.highPacketsLostFraction])
        #expect(last.raised == [WarningRecord(name: "high-packets-lost-fraction", values: "3.010000",
                                              threshold: "3.000000", timestamp: millis(7))])
    }

    @Test func needsAFullWindowOfSeven() {
        var engine = WarningsEngine()
        // Six samples at 50 %: averages of 50 % over fewer than seven samples do not count.
        let early = feed(Array(repeating: 50, count: 6), into: &engine)
        #expect(early.allSatisfy { $0.current.isEmpty })
        // The seventh (0 %) completes the window: 300 / 7 = 42.857143 %.
        let update = engine.ingest(sample(7, loss: 0))
        #expect(update.raised.map(\.values) == ["42.857143"])
    }

    @Test func hysteresisHoldsBetweenOneAndThreeAndClearsAtOne() {
        var engine = WarningsEngine()
        _ = feed(Array(repeating: 3.01, count: 7), into: &engine)
        #expect(engine.current == [.highPacketsLostFraction])
        // Seven samples at 2 %: the average falls to 2 %, which is not ≤ 1 %: held.
        let held = feed(Array(repeating: 2, count: 7), from: 8, into: &engine)
        #expect(held.allSatisfy { $0.current == [.highPacketsLostFraction] && $0.cleared.isEmpty })
        // Seven at 1 %: with k ones the average is (14 − k) / 7, ≤ 1 only at k = 7 (sample 21).
        let clearing = feed(Array(repeating: 1, count: 7), from: 15, into: &engine)
        #expect(clearing[0...5].allSatisfy { $0.current == [.highPacketsLostFraction] })
        #expect(clearing[6].cleared == [ClearedWarningRecord(name: "high-packets-lost-fraction", timestamp: millis(21))])
        #expect(clearing[6].current.isEmpty)
        // Back at 2 %: not raised again (2 is not > 3).
        _ = feed(Array(repeating: 2, count: 7), from: 22, into: &engine)
        #expect(engine.current.isEmpty)
        #expect(engine.raisedRecords.count == 1)
    }
}

/// Sets of ten integer levels with known population standard deviations, found by search and
/// checked in ``WarningsEngineAudioLevelTests/levelSetsHaveTheClaimedDeviation``: with integer levels,
/// 100 · variance = 10·Σx² − (Σx)² is an integer, so the deviation can only sit near, never on, 327.67.
enum LevelSets {
    /// 10·Σx² − (Σx)² = 10736761: sd = 327.669971… ≤ 327.67.
    static let justBelowRaise = [11, 2, 16, 6, 24, 655, 843, 318, 635, 657]
    /// 10736764: sd = 327.670017… > 327.67.
    static let justAboveRaise = [3, 10, 0, 33, 4, 291, 669, 815, 662, 649]
    /// 10737416: sd = 327.679966…, about 327.68.
    static let about32768 = [12, 6, 0, 338, 5, 648, 634, 859, 656, 644]
    /// 96630865, in an order whose partial windows after ten 20s never exceed 983.01: sd = 983.009995… ≤ 983.01.
    static let justBelowClear = [1966, 1963, 1018, 1960, 2412, 0, 4, 4, 8, 20]
    /// 96630869, ordered likewise after ten 33s: sd = 983.010015… > 983.01.
    static let justAboveClear = [18, 1949, 1, 1976, 910, 2431, 4, 1976, 22, 32]

    /// 10·Σx² − (Σx)², exactly, in integers.
    static func scaledVariance(_ levels: [Int]) -> Int {
        let sum = levels.reduce(0, +)
        let squares = levels.reduce(0) { $0 + $1 * $1 }
        return levels.count * squares - sum * sum
    }
}

@Suite struct WarningsEngineAudioLevelTests {
    @Test func levelSetsHaveTheClaimedDeviation() {
        // Threshold² · 100 = 327.67² · 100 = 10736762.89 and 983.01² · 100 = 96630866.01.
        #expect(LevelSets.scaledVariance(LevelSets.justBelowRaise) == 10_736_761)
        #expect(LevelSets.scaledVariance(LevelSets.justAboveRaise) == 10_736_764)
        #expect(LevelSets.scaledVariance(LevelSets.about32768) == 10_737_416)
        #expect(LevelSets.scaledVariance(LevelSets.justBelowClear) == 96_630_865)
        #expect(LevelSets.scaledVariance(LevelSets.justAboveClear) == 96_630_869)
    }

    /// Feeds `levels` as input levels (output varying), or as output levels (input varying).
    func feed(_ levels: [Int], output: Bool, from first: Int = 1, muted: Bool = false, onHold: Bool = false,
              into engine: inout WarningsEngine) -> [WarningsUpdate] {
        levels.enumerated().map { offset, level in
            let s = output ? sample(first + offset, output: level) : sample(first + offset, input: level)
            return engine.ingest(s, muted: muted, onHold: onHold)
        }
    }

    @Test(arguments: [false, true])
    func deviationAtMostOnePercentRaises(output: Bool) throws {
        let warning: QualityWarning = output ? .constantAudioOutputLevel : .constantAudioInputLevel
        var engine = WarningsEngine()
        let updates = feed(LevelSets.justBelowRaise, output: output, into: &engine)
        #expect(updates[0...8].allSatisfy { $0.current.isEmpty })
        let last = try #require(updates.last)
        #expect(last.current == [warning])
        // Values: the deviation as % of 32767, i.e. sqrt(10736761)/10/32767·100 ≈ 0.99999991 %.
        let percent = (10_736_761.0).squareRoot() / 10 / 32767 * 100
        #expect(last.raised == [WarningRecord(name: warning.rawValue, values: printf(percent),
                                              threshold: "1.000000", timestamp: millis(10))])
        #expect(last.raised.first?.values == "1.000000")
    }

    @Test(arguments: [false, true])
    func deviationAboveOnePercentDoesNotRaise(output: Bool) {
        for levels in [LevelSets.justAboveRaise, LevelSets.about32768] {
            var engine = WarningsEngine()
            _ = feed(levels, output: output, into: &engine)
            #expect(engine.current.isEmpty)
        }
    }

    @Test(arguments: [false, true])
    func needsAFullWindowOfTen(output: Bool) {
        var engine = WarningsEngine()
        let updates = feed(Array(repeating: 1234, count: 10), output: output, into: &engine)
        #expect(updates[0...8].allSatisfy { $0.current.isEmpty })
        #expect(updates[9].raised.map(\.values) == ["0.000000"])
    }

    @Test func seedExampleValueIsAPercentage() {
        // A window of five 0s and five 200s: sd = 100, i.e. 100/32767 = 0.305185 % of 32767.
        var engine = WarningsEngine()
        _ = feed([0, 200, 0, 200, 0, 200, 0, 200, 0, 200], output: false, into: &engine)
        #expect(engine.raisedRecords.map(\.values) == ["0.305185"])
    }

    @Test(arguments: [false, true])
    func deviationAtMostThreePercentDoesNotClear(output: Bool) {
        var engine = WarningsEngine()
        _ = feed(Array(repeating: 20, count: 10), output: output, into: &engine)
        #expect(engine.current.count == 1)
        _ = feed(LevelSets.justBelowClear, output: output, from: 11, into: &engine)
        #expect(engine.current.count == 1)
        #expect(engine.clearedRecords.isEmpty)
    }

    @Test(arguments: [false, true])
    func deviationAboveThreePercentClears(output: Bool) {
        let warning: QualityWarning = output ? .constantAudioOutputLevel : .constantAudioInputLevel
        var engine = WarningsEngine()
        _ = feed(Array(repeating: 33, count: 10), output: output, into: &engine)
        let updates = feed(LevelSets.justAboveClear, output: output, from: 11, into: &engine)
        #expect(updates[0...8].allSatisfy { $0.current == [warning] })
        #expect(updates[9].cleared == [ClearedWarningRecord(name: warning.rawValue, timestamp: millis(20))])
        #expect(updates[9].current.isEmpty)
    }

    @Test func mutedSuppressesInputLevelOnly() {
        var engine = WarningsEngine()
        // Both levels constant for twelve samples while muted: only the output warning rises.
        let updates = (1...12).map { engine.ingest(sample($0, input: 0, output: 700), muted: true) }
        #expect(updates[9].current == [.constantAudioOutputLevel])
        #expect(engine.current == [.constantAudioOutputLevel])
    }

    @Test func onHoldSuppressesOutputLevelOnly() {
        var engine = WarningsEngine()
        _ = (1...12).map { engine.ingest(sample($0, input: 700, output: 0), onHold: true) }
        #expect(engine.current == [.constantAudioInputLevel])
        #expect(engine.raisedRecords.map(\.timestamp) == [millis(10)])
    }

    @Test func mutingClearsAnActiveInputWarningAndNeedsTenFreshSamples() {
        var engine = WarningsEngine()
        _ = (1...10).map { engine.ingest(sample($0, input: 5)) }
        #expect(engine.current == [.constantAudioInputLevel])
        let muted = engine.ingest(sample(11, input: 0), muted: true)
        #expect(muted.cleared == [ClearedWarningRecord(name: "constant-audio-input-level", timestamp: millis(11))])
        #expect(muted.previous == [.constantAudioInputLevel])
        #expect(muted.current.isEmpty)
        // Unmuted again with constant levels: the window restarts, so the warning returns at the
        // tenth unmuted sample (sample 21), not before.
        let after = (12...21).map { engine.ingest(sample($0, input: 5)) }
        #expect(after[0...8].allSatisfy { $0.current.isEmpty })
        #expect(after[9].raised.map(\.timestamp) == [millis(21)])
        #expect(engine.raisedRecords.count == 2)
    }

    @Test func holdClearsAnActiveOutputWarning() {
        var engine = WarningsEngine()
        _ = (1...10).map { engine.ingest(sample($0, output: 9)) }
        let held = engine.ingest(sample(11, output: 9), onHold: true)
        #expect(held.cleared == [ClearedWarningRecord(name: "constant-audio-output-level", timestamp: millis(11))])
        // Staying on hold clears nothing more.
        let again = engine.ingest(sample(12, output: 9), onHold: true)
        #expect(again.cleared.isEmpty)
        #expect(!again.didChange)
    }
}

@Suite struct WarningsEngineRecordTests {
    @Test func timestampsAreTruncatedMilliseconds() {
        var engine = WarningsEngine()
        for (i, ts) in [1_731_699_128_296.1, 1_731_699_128_297.5, 1_731_699_128_298.999].enumerated() {
            var s = sample(i + 1, rtt: 900)
            s.timestamp = ts
            _ = engine.ingest(s)
        }
        #expect(engine.raisedRecords.map(\.timestamp) == [1_731_699_128_298])
    }

    @Test func hostileTimestampsDoNotTrap() {
        var engine = WarningsEngine()
        for ts in [Double.nan, .infinity, -.infinity, 1e30, -1e30] {
            var e = WarningsEngine()
            for i in 1...3 {
                var s = sample(i, rtt: 900)
                s.timestamp = ts
                _ = e.ingest(s)
            }
            #expect(e.raisedRecords.count == 1)
        }
        var s = sample(1, rtt: .nan, jitter: .infinity, mos: .nan, loss: .nan, input: .max, output: .min)
        for _ in 1...12 { _ = engine.ingest(s) }
        s.timestamp = .nan
        _ = engine.ingest(s)
        // Infinite jitter is above 30 ms: raised; NaN never raises.
        #expect(engine.current.contains(.highJitter))
        #expect(!engine.current.contains(.highRTT))
        #expect(!engine.current.contains(.lowMOS))
    }

    @Test func updateWithoutChangeHasNoRecords() {
        var engine = WarningsEngine()
        let update = engine.ingest(sample(1))
        #expect(update == WarningsUpdate(current: [], previous: []))
        #expect(!update.didChange)
    }
}

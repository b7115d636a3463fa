import PreflightCore
import Testing

/// A 30-second run touching every rule, with the expected records derived by hand below.
@Suite struct WarningsEngineSequenceTests {
    /// Samples i = 1…30 (timestamps `millis(i)`). Defaults: rtt 50, jitter 5, MOS 4.4, loss 0,
    /// input level alternating 0/2000 (sd 1000 > 983.01: never constant). Deviations:
    ///
    /// - RTT: 1–2: 50; 3: 500, 4: 600, 5: 700 → at 5 the window [50 50 500 600 700] has three > 400:
    ///   **raise high-rtt @5**, values mean(500, 600, 700) = 600. 6–25: 100 → windows ending 6–9 still
    ///   hold a value > 400; at 10 all five are 100: **clear high-rtt @10**.
    ///   26–28: 450 → at 28 [100 100 450 450 450]: **raise high-rtt @28** (a new record), values 450;
    ///   29–30: 100 → [450 450 450 100 100] is not all below: still active at the end.
    /// - Loss: 1–7: 0; 8–11: 10 %; 12–30: 0. Full windows: @8 10/7 = 1.43, @9 20/7 = 2.86,
    ///   @10 30/7 = 4.285714 > 3: **raise high-packets-lost-fraction @10**, values 4.285714;
    ///   @11–14 40/7 = 5.71, @15 30/7, @16 20/7 = 2.86 and @17 10/7 = 1.43 (held, > 1),
    ///   @18 0: **clear @18**.
    /// - Output level: 1–10: 500 → sd 0 at 10: **raise constant-audio-output-level @10**, values
    ///   0.000000; 11: on hold → **clear @11**; 12–30: alternating 0/2000, the window restarts at 12,
    ///   is full at 21 with sd 1000: never raised again.
    /// - MOS: 12: 3.4, 13: 3.5, 14: 3.0 → at 14 [4.4 4.4 3.4 3.5 3.0]: only two < 3.5 (3.5 is not
    ///   lower); 15: 3.2 → [4.4 3.4 3.5 3.0 3.2]: three: **raise low-mos @15**, values
    ///   mean(3.4, 3.0, 3.2) = 3.2; 16–30: 4.4 → first all-good window at 20: **clear low-mos @20**.
    /// - Jitter: 20: 40, 22: 31, 24: 30.5 → at 24 [40 5 31 5 30.5]: three > 30: **raise high-jitter
    ///   @24**, values (40 + 31 + 30.5) / 3 = 33.833333; first all-good window at 29: **clear @29**.
    ///
    /// At sample 10, rules run in declaration order: high-rtt clears, then loss and output raise.
    static func run() -> (engine: WarningsEngine, updates: [WarningsUpdate]) {
        var engine = WarningsEngine()
        var updates: [WarningsUpdate] = []
        let rtt: [Int: Double] = [3: 500, 4: 600, 5: 700, 26: 450, 27: 450, 28: 450]
        let mos: [Int: Double] = [12: 3.4, 13: 3.5, 14: 3.0, 15: 3.2]
        let jitter: [Int: Double] = [20: 40, 22: 31, 24: 30.5]
        for i in 1...30 {
            let s = sample(
                i,
                rtt: rtt[i] ?? (i <= 2 ? 50 : 100),
                jitter: jitter[i] ?? 5,
                mos: mos[i] ?? 4.4,
                loss: (8...11).contains(i) ? 10 : 0,
                output: i <= 10 ? 500 : nil
            )
            updates.append(engine.ingest(s, onHold: i == 11))
        }
        return (engine, updates)
    }

    @Test func raisedRecords() {
        let (engine, _) = Self.run()
        #expect(engine.raisedRecords == [
            WarningRecord(name: "high-rtt", values: "600.000000", threshold: "400.000000", timestamp: millis(5)),
            WarningRecord(name: "high-packets-lost-fraction", values: "4.285714", threshold: "3.000000",
                          timestamp: millis(10)),
            WarningRecord(name: "constant-audio-output-level", values: "0.000000", threshold: "1.000000",
                          timestamp: millis(10)),
            WarningRecord(name: "low-mos", values: "3.200000", threshold: "3.500000", timestamp: millis(15)),
            WarningRecord(name: "high-jitter", values: "33.833333", threshold: "30.000000", timestamp: millis(24)),
            WarningRecord(name: "high-rtt", values: "450.000000", threshold: "400.000000", timestamp: millis(28)),
        ])
    }

    @Test func clearedRecords() {
        let (engine, _) = Self.run()
        #expect(engine.clearedRecords == [
            ClearedWarningRecord(name: "high-rtt", timestamp: millis(10)),
            ClearedWarningRecord(name: "constant-audio-output-level", timestamp: millis(11)),
            ClearedWarningRecord(name: "high-packets-lost-fraction", timestamp: millis(18)),
            ClearedWarningRecord(name: "low-mos", timestamp: millis(20)),
            ClearedWarningRecord(name: "high-jitter", timestamp: millis(29)),
        ])
        #expect(engine.current == [.highRTT])
    }

    @Test func currentAndPreviousSets() {
        let (_, updates) = Self.run()
        // updates[i - 1] is sample i.
        #expect(updates[4].previous.isEmpty && updates[4].current == [.highRTT])
        #expect(updates[9].previous == [.highRTT])
        #expect(updates[9].current == [.highPacketsLostFraction, .constantAudioOutputLevel])
        #expect(updates[10].current == [.highPacketsLostFraction])
        #expect(updates[14].current == [.highPacketsLostFraction, .lowMOS])
        #expect(updates[17].current == [.lowMOS])
        #expect(updates[19].current.isEmpty)
        // Every update's previous is the previous update's current, and didChange matches.
        for (before, after) in zip(updates, updates.dropFirst()) {
            #expect(after.previous == before.current)
        }
        let changed = updates.enumerated().filter(\.element.didChange).map { $0.offset + 1 }
        #expect(changed == [5, 10, 11, 15, 18, 20, 24, 28, 29])
    }
}

import PreflightCore
import Testing

/// MOS from R written out by hand (docs/measurement.md, "MOS"), independent of the implementation.
private func handMOS(_ r: Double) -> Double {
    1 + 0.035 * r + 0.000007 * r * (r - 60) * (100 - r)
}

@Suite struct MeanOpinionScoreTests {
    @Test func seedSample() {
        // rtt 34, jitter 1, loss 0: eL = 34 + 2 + 10 = 46 < 160, R = 94.768 − 46/40 = 93.618.
        let r = MeanOpinionScore.rFactor(rtt: 34, jitter: 1, packetLossPercent: 0)
        #expect((r - 93.618).magnitude < 1e-9)
        let mos = MeanOpinionScore.mos(rtt: 34, jitter: 1, packetLossPercent: 0)
        #expect((mos - 4.41394).magnitude < 0.005)
        #expect((mos - handMOS(93.618)).magnitude < 1e-9)
    }

    @Test func noImpairment() {
        // eL = 10: R = 94.768 − 0.25 = 94.518.
        #expect((MeanOpinionScore.rFactor(rtt: 0, jitter: 0, packetLossPercent: 0) - 94.518).magnitude < 1e-9)
        #expect((MeanOpinionScore.mos(rtt: 0, jitter: 0, packetLossPercent: 0) - handMOS(94.518)).magnitude < 1e-9)
    }

    /// (rtt, jitter, loss %, expected R) around the eL = 160 and eL = 1000 edges.
    static let latencyCases: [(Double, Double, Double, Double)] = [
        (149.99, 0.0, 0.0, 94.768 - 159.99 / 40),  // eL 159.99: first branch
        (150.0, 0.0, 0.0, 94.768 - (160.0 - 120) / 10),  // eL 160: second branch, 90.768
        (150.01, 0.0, 0.0, 94.768 - (160.01 - 120) / 10),  // eL 160.01
        (130.0, 10.0, 0.0, 94.768 - (160.0 - 120) / 10),  // eL 160 via jitter (×2)
        (989.99, 0.0, 0.0, 94.768 - (999.99 - 120) / 10),  // eL 999.99: R 6.769
        (990.0, 0.0, 0.0, 6.52),  // eL 1000: R 0, then the 6.52 floor at 0 % loss
        (990.01, 0.0, 0.0, 6.52),  // eL past 1000
        (990.0, 0.0, 0.01, 0.0),  // eL 1000 with any loss: loss > 0/2.5, R 0
        (5000.0, 0.0, 0.0, 6.52),
        (Double.infinity, 0.0, 0.0, 6.52),
    ]

    @Test(arguments: latencyCases)
    func latencyEdges(rtt: Double, jitter: Double, loss: Double, expectedR: Double) {
        let r = MeanOpinionScore.rFactor(rtt: rtt, jitter: jitter, packetLossPercent: loss)
        #expect((r - expectedR).magnitude < 1e-9)
        let mos = MeanOpinionScore.mos(rtt: rtt, jitter: jitter, packetLossPercent: loss)
        #expect((mos - handMOS(expectedR)).magnitude < 1e-9)
    }

    /// (loss %, expected R) at rtt 0, jitter 0 where R before loss is 94.518 and R/2.5 = 37.8072.
    static let lossCases: [(Double, Double)] = [
        (1.0, 94.518 - 2.5),
        (35.0, 94.518 - 87.5),  // 7.018: above the floor
        (35.1992, 6.52),  // 94.518 − 87.998 = 6.52 exactly: the floor
        (35.5, 6.52),  // 5.768 → floored
        ((94.768 - 10.0 / 40) / 2.5, 6.52),  // loss = R/2.5: not above, floored
        (37.81, 0.0),  // loss > R/2.5 → 0
        (100.0, 0.0),
        (250.0, 0.0),  // clamped to 100 %
    ]

    @Test(arguments: lossCases)
    func lossEdges(loss: Double, expectedR: Double) {
        let r = MeanOpinionScore.rFactor(rtt: 0, jitter: 0, packetLossPercent: loss)
        #expect((r - expectedR).magnitude < 1e-9)
    }

    @Test func negativeInputsClampToZero() {
        let clean = MeanOpinionScore.rFactor(rtt: 0, jitter: 0, packetLossPercent: 0)
        #expect(MeanOpinionScore.rFactor(rtt: -50, jitter: -3, packetLossPercent: -1) == clean)
    }

    @Test(arguments: [
        (Double.nan, 0.0, 0.0), (0.0, Double.nan, 0.0), (0.0, 0.0, Double.nan),
    ])
    func nanIsUnknown(rtt: Double, jitter: Double, loss: Double) {
        #expect(MeanOpinionScore.rFactor(rtt: rtt, jitter: jitter, packetLossPercent: loss).isNaN)
        #expect(MeanOpinionScore.mos(rtt: rtt, jitter: jitter, packetLossPercent: loss).isNaN)
    }

    static let mosAt50: Double = 1 + 1.75 - 0.000007 * 50 * 10 * 50  // 2.575
    static let mosCases: [(Double, Double)] = [(-5, 1), (0, 1), (50, mosAt50), (100, 4.5), (120, 4.5)]

    @Test(arguments: mosCases)
    func mosFromR(r: Double, expected: Double) {
        #expect((MeanOpinionScore.mos(fromR: r) - expected).magnitude < 1e-12)
    }
}

import Foundation
import PreflightCore
import Testing

@Suite struct EModelTests {
    @Test func defaults() {
        let model = EModel()
        #expect((model.basicSignalToNoiseRatio - 94.77).magnitude < 0.01)
        #expect(model.rFactor >= 93.19 && model.rFactor <= 93.21)
        #expect((model.mos - 4.41).magnitude < 0.005)
        // No loss, no delay: only the listener-echo term of Id remains (≈ 0.15).
        #expect(model.effectiveEquipmentImpairment == 0)
        #expect(model.talkerEchoImpairment.magnitude < 1e-12)
        #expect((model.delayImpairment - 0.15).magnitude < 0.01)
        #expect((model.simultaneousImpairment - 1.41).magnitude < 0.01)
    }

    /// (Ppl %, BurstR, codec, expected Ie,eff), by hand: Ie + (95 − Ie)·Ppl/(Ppl/BurstR + Bpl).
    @Test(arguments: [
        (0.0, 1.0, EModel.Codec.g711WithPLC, 0.0),
        (1.0, 1.0, EModel.Codec.g711WithPLC, 95.0 / 26.1),  // 3.640
        (2.0, 1.0, EModel.Codec.g711WithPLC, 190.0 / 27.1),  // 7.011
        (5.0, 1.0, EModel.Codec.g711WithPLC, 475.0 / 30.1),  // 15.781
        (2.0, 2.0, EModel.Codec.g711WithPLC, 190.0 / 26.1),  // bursty: 7.280
        (1.0, 1.0, EModel.Codec.g711, 95.0 / 5.3),  // no PLC: 17.925
    ])
    func effectiveEquipmentImpairment(loss: Double, burst: Double, codec: EModel.Codec, expected: Double) {
        var model = EModel()
        model.packetLossPercent = loss
        model.burstRatio = burst
        model.codec = codec
        #expect((model.effectiveEquipmentImpairment - expected).magnitude < 1e-9)
        // R drops by exactly Ie,eff from the lossless model.
        #expect(((EModel().rFactor - model.rFactor) - expected).magnitude < 1e-9)
    }

    /// Idd by hand: Ta 150: X = log2 1.5 = 0.58496, X⁶ = 0.040065, (1 + X⁶)^(1/6) = 1.006569,
    /// (X/3)⁶ = 5.496e-5, (1 + (X/3)⁶)^(1/6) = 1.0000092, Idd = 25(1.006569 − 3.0000275 + 2) = 0.1635.
    /// Ta 300: X = log2 3 = 1.58496, X⁶ = 15.8531, (16.8531)^(1/6) = 1.601204, (X/3)⁶ = 0.0217464,
    /// (1.0217464)^(1/6) = 1.003592, Idd = 25(1.601204 − 3.010776 + 2) = 14.761.
    @Test(arguments: [
        (0.0, 0.0), (100.0, 0.0), (150.0, 0.1635), (300.0, 14.761),
    ])
    func absoluteDelayImpairment(ta: Double, expected: Double) {
        #expect((EModel.absoluteDelayImpairment(absoluteDelay: ta) - expected).magnitude < 0.001)
    }

    @Test func absoluteDelayJustAbove100IsNearZero() {
        let idd = EModel.absoluteDelayImpairment(absoluteDelay: 100.001)
        #expect(idd >= 0 && idd < 1e-6)
    }

    @Test func networkInitializer() {
        let model = EModel(rtt: 200, jitterBufferDelay: 40, packetLossPercent: 2)
        #expect(model.absoluteDelay == 140)
        #expect(model.meanOneWayDelay == 140)
        #expect(model.roundTripDelay == 280)
        #expect(model.packetLossPercent == 2)
        let hostile = EModel(rtt: .nan, jitterBufferDelay: -5, packetLossPercent: 500, burstRatio: 0)
        #expect(hostile.absoluteDelay == 0 && hostile.packetLossPercent == 100 && hostile.burstRatio == 1)
        #expect(hostile.rFactor.isFinite)
    }

    @Test func monotonicInDelayAndLoss() {
        var previous = Double.infinity
        for rtt in stride(from: 0.0, through: 2000, by: 10) {
            let r = EModel(rtt: rtt).rFactor
            #expect(r <= previous + 1e-9, "R rose at rtt \(rtt)")
            previous = r
        }
        previous = .infinity
        for loss in stride(from: 0.0, through: 30, by: 0.5) {
            let r = EModel(rtt: 100, packetLossPercent: loss).rFactor
            #expect(r < previous, "R did not fall at loss \(loss)")
            previous = r
        }
    }

    static let mosAt93: Double = 1 + 3.262 + 93.2 * 33.2 * 6.8 * 7e-6
    static let annexBCases: [(Double, Double)] = [(-1, 1), (0, 1), (93.2, mosAt93), (100, 4.5), (101, 4.5)]

    @Test(arguments: annexBCases)
    func annexBMOS(r: Double, expected: Double) {
        #expect((EModel.mos(fromR: r) - expected).magnitude < 1e-12)
    }
}

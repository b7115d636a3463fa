import Foundation  // log10, pow, exp

/// The full ITU-T G.107 E-model: R = Ro − Is − Id − Ie,eff + A, and MOS from R (Annex B).
///
/// Every input of G.107 Table 3 is a property with its default value; with all defaults
/// R ≈ 93.2 and MOS ≈ 4.41. Delay sensitivity uses the default mT = 100 ms, sT = 1.
/// ``init(rtt:jitterBufferDelay:packetLossPercent:burstRatio:codec:)`` maps network measurements
/// onto it. This is reported alongside the simplified ``MeanOpinionScore``, not instead of it.
package struct EModel: Sendable, Hashable, Codable {
    /// Send loudness rating SLR, dB (default 8).
    package var sendLoudnessRating = 8.0
    /// Receive loudness rating RLR, dB (default 2).
    package var receiveLoudnessRating = 2.0
    /// Sidetone masking rating STMR, dB (default 15).
    package var sidetoneMaskingRating = 15.0
    /// Listener sidetone rating LSTR, dB (default 18).
    package var listenerSidetoneRating = 18.0
    /// D-value of the telephone, send side Ds (default 3).
    package var sendDValue = 3.0
    /// Talker echo loudness rating TELR, dB (default 65).
    package var talkerEchoLoudnessRating = 65.0
    /// Weighted echo path loss WEPL, dB (default 110).
    package var weightedEchoPathLoss = 110.0
    /// Mean one-way delay of the echo path T, ms (default 0).
    package var meanOneWayDelay = 0.0
    /// Round-trip delay in a 4-wire loop Tr, ms (default 0).
    package var roundTripDelay = 0.0
    /// Absolute (mouth-to-ear) delay Ta, ms (default 0).
    package var absoluteDelay = 0.0
    /// Number of quantizing distortion units qdu (default 1).
    package var quantizingDistortionUnits = 1.0
    /// Codec impairment parameters (default G.711 with PLC).
    package var codec = Codec.g711WithPLC
    /// Random packet-loss probability Ppl, % (default 0).
    package var packetLossPercent = 0.0
    /// Burst ratio BurstR: 1 for random loss, above 1 for bursty loss (default 1).
    package var burstRatio = 1.0
    /// Circuit noise referred to the 0 dBr point Nc, dBm0p (default −70).
    package var circuitNoise = -70.0
    /// Noise floor at the receive side Nfor, dBmp (default −64).
    package var receiveNoiseFloor = -64.0
    /// Room noise at the send side Ps, dB(A) (default 35).
    package var sendRoomNoise = 35.0
    /// Room noise at the receive side Pr, dB(A) (default 35).
    package var receiveRoomNoise = 35.0
    /// Advantage factor A (default 0).
    package var advantage = 0.0

    /// Creates a model with every G.107 default.
    package init() {}

    /// A model for a VoIP path: Ta = rtt/2 + jitter-buffer delay (mouth-to-ear), the echo path T
    /// taken as Ta and the 4-wire loop Tr as 2·Ta; other parameters default.
    /// - Parameters:
    ///   - rtt: network round-trip time, ms (negative or NaN read as 0).
    ///   - jitterBufferDelay: receive jitter-buffer (and packetisation) delay, ms.
    ///   - packetLossPercent: random packet loss, % (clamped to 0–100; NaN read as 0).
    ///   - burstRatio: BurstR, 1 for random loss (values below 1 read as 1).
    ///   - codec: codec impairment parameters.
    package init(
        rtt: Double, jitterBufferDelay: Double = 0, packetLossPercent: Double = 0,
        burstRatio: Double = 1, codec: Codec = .g711WithPLC
    ) {
        let oneWay = Self.nonNegative(rtt) / 2 + Self.nonNegative(jitterBufferDelay)
        absoluteDelay = oneWay
        meanOneWayDelay = oneWay
        roundTripDelay = 2 * oneWay
        self.packetLossPercent = Swift.min(100, Self.nonNegative(packetLossPercent))
        self.burstRatio = burstRatio >= 1 ? burstRatio : 1
        self.codec = codec
    }

    private static func nonNegative(_ value: Double) -> Double {
        value.isNaN ? 0 : Swift.max(0, value)
    }

    // MARK: Basic signal-to-noise ratio

    /// Overall loudness rating OLR = SLR + RLR, dB.
    package var overallLoudnessRating: Double { sendLoudnessRating + receiveLoudnessRating }

    /// Total noise No, dBm0p: power sum of circuit noise, send and receive room noise and the noise floor.
    package var noise: Double {
        let slr = sendLoudnessRating, rlr = receiveLoudnessRating
        let nos = sendRoomNoise - slr - sendDValue - 100
            + 0.004 * pow(sendRoomNoise - overallLoudnessRating - sendDValue - 14, 2)
        let pre = receiveRoomNoise + 10 * log10(1 + pow(10, (10 - listenerSidetoneRating) / 10))
        let nor = rlr - 121 + pre + 0.008 * pow(pre - 35, 2)
        let nfo = receiveNoiseFloor + rlr
        return 10 * log10(
            pow(10, circuitNoise / 10) + pow(10, nos / 10) + pow(10, nor / 10) + pow(10, nfo / 10))
    }

    /// Basic signal-to-noise ratio Ro = 15 − 1.5(SLR + No).
    package var basicSignalToNoiseRatio: Double { 15 - 1.5 * (sendLoudnessRating + noise) }

    // MARK: Simultaneous impairment

    /// STMRo = −10 log10(10^(−STMR/10) + e^(−T/4)·10^(−TELR/10)), dB.
    var sidetoneMaskingRatingO: Double {
        -10 * log10(
            pow(10, -sidetoneMaskingRating / 10)
                + exp(-meanOneWayDelay / 4) * pow(10, -talkerEchoLoudnessRating / 10))
    }

    /// Sidetone impairment Ist.
    var sidetoneImpairment: Double {
        let s = sidetoneMaskingRatingO
        return 12 * pow(1 + pow((s - 13) / 6, 8), 1.0 / 8)
            - 28 * pow(1 + pow((s + 1) / 19.4, 35), 1.0 / 35)
            - 13 * pow(1 + pow((s - 3) / 33, 13), 1.0 / 13) + 29
    }

    /// Simultaneous impairment Is = Iolr + Ist + Iq.
    package var simultaneousImpairment: Double {
        let no = noise
        let xolr = overallLoudnessRating + 0.2 * (64 + no - receiveLoudnessRating)
        let iolr = 20 * (pow(1 + pow(xolr / 8, 8), 1.0 / 8) - xolr / 8)
        let q = 37 - 15 * log10(quantizingDistortionUnits)
        let g = 1.07 + 0.258 * q + 0.0602 * q * q
        let z = 46.0 / 30 - g / 40
        let y = (basicSignalToNoiseRatio - 100) / 15 + 46.0 / 8.4 - g / 9
        let iq = 15 * log10(1 + pow(10, y) + pow(10, z))
        return iolr + sidetoneImpairment + iq
    }

    // MARK: Delay impairment

    /// Talker-echo impairment Idte.
    package var talkerEchoImpairment: Double {
        let t = meanOneWayDelay
        var terv = talkerEchoLoudnessRating - 40 * log10((1 + t / 10) / (1 + t / 150)) + 6 * exp(-0.3 * t * t)
        if sidetoneMaskingRating < 9 { terv += sidetoneImpairment / 2 }
        let roe = -1.5 * (noise - receiveLoudnessRating)
        let re = 80 + 2.5 * (terv - 14)
        let difference = roe - re
        return (difference / 2 + (difference * difference / 4 + 100).squareRoot() - 1) * (1 - exp(-t))
    }

    /// Listener-echo impairment Idle.
    package var listenerEchoImpairment: Double {
        let rle = 10.5 * (weightedEchoPathLoss + 7) * pow(roundTripDelay + 1, -0.25)
        let difference = basicSignalToNoiseRatio - rle
        return difference / 2 + (difference * difference / 4 + 169).squareRoot()
    }

    /// Impairment from too-long absolute delay Idd at `absoluteDelay` Ta (ms): 0 up to 100 ms,
    /// else 25{(1 + X⁶)^(1/6) − 3(1 + (X/3)⁶)^(1/6) + 2} with X = log2(Ta/100).
    package static func absoluteDelayImpairment(absoluteDelay ta: Double) -> Double {
        guard ta > 100 else { return 0 }
        let x = log2(ta / 100)
        return 25 * (pow(1 + pow(x, 6), 1.0 / 6) - 3 * pow(1 + pow(x / 3, 6), 1.0 / 6) + 2)
    }

    /// Delay impairment Id = Idte + Idle + Idd.
    package var delayImpairment: Double {
        talkerEchoImpairment + listenerEchoImpairment
            + Self.absoluteDelayImpairment(absoluteDelay: absoluteDelay)
    }

    // MARK: Equipment impairment

    /// Effective equipment impairment Ie,eff = Ie + (95 − Ie)·Ppl/(Ppl/BurstR + Bpl).
    package var effectiveEquipmentImpairment: Double {
        let ie = codec.equipmentImpairment
        let ppl = packetLossPercent
        let denominator = ppl / burstRatio + codec.packetLossRobustness
        guard denominator > 0 else { return ie }
        return ie + (95 - ie) * ppl / denominator
    }

    // MARK: Result

    /// Transmission rating R = Ro − Is − Id − Ie,eff + A.
    package var rFactor: Double {
        basicSignalToNoiseRatio - simultaneousImpairment - delayImpairment
            - effectiveEquipmentImpairment + advantage
    }

    /// MOS from ``rFactor`` (G.107 Annex B).
    package var mos: Double { Self.mos(fromR: rFactor) }

    /// G.107 Annex B: 1 for R < 0, 4.5 for R > 100, else 1 + 0.035R + R(R − 60)(100 − R)·7·10⁻⁶;
    /// NaN stays NaN.
    package static func mos(fromR r: Double) -> Double {
        MeanOpinionScore.mos(fromR: r)
    }
}

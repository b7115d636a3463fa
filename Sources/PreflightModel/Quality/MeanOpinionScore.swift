/// The simplified E-model MOS, the formula of Twilio's open-source voice SDK (docs/measurement.md,
/// "MOS"; docs/references.md).
///
/// ```
/// eL = rtt + 2·jitter + 10                       (ms)
/// R  = 94.768 − eL/40            if eL < 160
///    = 94.768 − (eL − 120)/10    if 160 ≤ eL < 1000
///    = 0                         if eL ≥ 1000
/// R  = max(R − 2.5·loss%, 6.52)  if loss% ≤ R/2.5
///    = 0                         otherwise
/// MOS = 1 + 0.035R + 7·10⁻⁶·R(R − 60)(100 − R)
/// ```
///
/// Edges, as in Twilio's source: eL = 160 takes the second branch; "R = 0 past eL 1000" means
/// eL ≥ 1000 (at eL = 1000 the second branch would still give 6.768). The zero R of that stage
/// then meets the loss step like any other R: with 0 % loss the 6.52 floor applies (MOS ≈ 1.0000),
/// with any loss R stays 0 (MOS 1). Loss exactly equal to R/2.5 keeps the floor.
///
/// Inputs: negative values are clamped to 0 and loss above 100 % to 100 %. A NaN input means
/// "unknown" and yields NaN (never a trap); map it with ``QualityCategory`` or ``CallQuality``.
/// +∞ latency or jitter gives the eL ≥ 1000 result.
public enum MeanOpinionScore {
    /// R at zero impairment, 94.768.
    public static let r0 = 94.768
    /// The R floor after the loss deduction, 6.52.
    public static let rFloor = 6.52

    /// R-factor from network measurements.
    /// - Parameters:
    ///   - rtt: round-trip time, ms.
    ///   - jitter: interarrival jitter, ms.
    ///   - packetLossPercent: packet loss, % (0–100).
    /// - Returns: R, 0 to 94.768; NaN when an input is NaN.
    public static func rFactor(rtt: Double, jitter: Double, packetLossPercent: Double) -> Double {
        if rtt.isNaN || jitter.isNaN || packetLossPercent.isNaN { return .nan }
        let rtt = Swift.max(0, rtt)
        let jitter = Swift.max(0, jitter)
        let loss = Swift.min(100, Swift.max(0, packetLossPercent))
        let effectiveLatency = rtt + 2 * jitter + 10
        var r: Double
        if effectiveLatency < 160 {
            r = r0 - effectiveLatency / 40
        } else if effectiveLatency < 1000 {
            r = r0 - (effectiveLatency - 120) / 10
        } else {
            r = 0
        }
        if loss <= r / 2.5 {
            r = Swift.max(r - 2.5 * loss, rFloor)
        } else {
            r = 0
        }
        return r
    }

    /// MOS from R: 1 + 0.035R + 7·10⁻⁶·R(R − 60)(100 − R), with R below 0 giving 1 and above 100
    /// giving 4.5 (ITU-T G.107 Annex B). NaN gives NaN.
    public static func mos(fromR r: Double) -> Double {
        if r.isNaN { return .nan }
        if r <= 0 { return 1 }
        if r >= 100 { return 4.5 }
        return 1 + 0.035 * r + r * (r - 60) * (100 - r) * 7.0e-6
    }

    /// MOS (1 to ~4.41) from network measurements: ``mos(fromR:)`` of
    /// ``rFactor(rtt:jitter:packetLossPercent:)``. NaN when an input is NaN.
    /// - Parameters:
    ///   - rtt: round-trip time, ms.
    ///   - jitter: interarrival jitter, ms.
    ///   - packetLossPercent: packet loss, % (0–100).
    public static func mos(rtt: Double, jitter: Double, packetLossPercent: Double) -> Double {
        mos(fromR: rFactor(rtt: rtt, jitter: jitter, packetLossPercent: packetLossPercent))
    }
}

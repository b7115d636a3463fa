/// A call-quality warning, as raised and cleared by the ``WarningsEngine``.
///
/// The raw values are the event names of "Twilio Voice SDK: TVOCall" (Insights) and of the example report's
/// `warnings[].name`.
public enum QualityWarning: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// Three of the last five RTT samples above 400 ms; cleared when all five are below 400 ms.
    case highRTT = "high-rtt"
    /// Three of the last five jitter samples above 30 ms; cleared when all five are below 30 ms.
    case highJitter = "high-jitter"
    /// Three of the last five MOS samples below 3.5; cleared when all five are above 3.5.
    case lowMOS = "low-mos"
    /// Average packet loss above 3 % over the last seven samples; cleared at 1 % or less.
    case highPacketsLostFraction = "high-packets-lost-fraction"
    /// Standard deviation of the last ten input levels ≤ 1 % of 32767 while not muted; cleared above 3 %.
    case constantAudioInputLevel = "constant-audio-input-level"
    /// Standard deviation of the last ten output levels ≤ 1 % of 32767 while not on hold; cleared above 3 %.
    case constantAudioOutputLevel = "constant-audio-output-level"

    /// Orders warnings by declaration order, for stable output.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.order < rhs.order
    }

    private var order: Int {
        switch self {
        case .highRTT: 0
        case .highJitter: 1
        case .lowMOS: 2
        case .highPacketsLostFraction: 3
        case .constantAudioInputLevel: 4
        case .constantAudioOutputLevel: 5
        }
    }
}

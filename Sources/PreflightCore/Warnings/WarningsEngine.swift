/// Raises and clears call-quality warnings from the stream of one-second stats samples.
///
/// A pure value: feed it each ``StatsSample`` in order with ``ingest(_:muted:onHold:)``; it keeps the
/// set of active warnings (``current``) and the full histories the report lists as `warnings`
/// (``raisedRecords``) and `warningsCleared` (``clearedRecords``). No clock is read: record
/// timestamps come from the samples.
///
/// The rules are those of the Insights tables of "Twilio Voice SDK: TVOCall" (docs/references.md), quoted on each constant
/// below. Where that document is silent, the choices made are:
/// - **Windows that are not yet full.** A 3-of-5 warning may be raised as soon as three samples of
///   the (up to five) window cross the threshold, but clearing needs a full window of five, all on
///   the good side. Loss needs a full window of seven samples and the audio rules a full window of
///   ten, both to raise and to clear: an average or a standard deviation over fewer samples is not
///   "the last 7" or "the last 10".
/// - **Strictness.** "greater than 400 ms", "exceed 30 ms", "lower than 3.5" and "> 3%" are strict,
///   so a sample exactly at the threshold is neither bad nor good for the 3-of-5 rules: it does not
///   count towards raising, and it prevents clearing ("last five … are less than"). Loss clears at
///   "<= 1%"; between 1 % and 3 % an active loss warning stays active (hysteresis).
/// - **Mute and hold.** Muting suppresses constant-audio-input-level ("and the call is not in the
///   muted state"), hold suppresses constant-audio-output-level ("the local call is not placed on
///   hold"). While suppressed, the level is not added to its window and the window is emptied, so
///   the silent frames sent while muted or on hold never count; after unmuting (or unholding) ten
///   fresh samples are needed. A warning active when its call becomes muted (on hold) is cleared
///   at that sample, and the clearing is recorded in ``clearedRecords``.
/// - **Order.** Within one sample, rules are evaluated in ``QualityWarning`` declaration order, which
///   is the order of the records a sample adds.
/// - **Repeats.** A warning raised again after it cleared adds a new record.
/// - **Non-finite values.** A NaN compares false with every threshold, so it neither raises nor
///   clears a 3-of-5 warning; an average or deviation that is NaN raises and clears nothing.
public struct WarningsEngine: Sendable, Hashable {
    // MARK: Thresholds of "Twilio Voice SDK: TVOCall"

    /// "Three out of last five RTT samples show greater than 400 ms." / "high-rtt warning cleared if
    /// last five RTT samples are lower than 400 ms." (ms)
    public static let rttThreshold = 400.0
    /// "Three out of last five jitter samples exceed 30 ms." / "high-jitter warning cleared if last
    /// five jitter samples are less than 30 ms." (ms)
    public static let jitterThreshold = 30.0
    /// "Three out of last five mos samples are lower than 3.5." / "low-mos cleared if last five mos
    /// samples are higher than 3.5." (MOS)
    public static let mosThreshold = 3.5
    /// How many of the last five samples must be bad to raise high-rtt, high-jitter or low-mos.
    public static let badSamplesToRaise = 3
    /// The window of the 3-of-5 rules, in samples.
    public static let shortWindow = 5
    /// "The average packet loss > 3% in last 7 samples." (%)
    public static let packetLossRaiseThreshold = 3.0
    /// "high-packets-lost-fraction cleared if average packet loss <= 1% in last 7 samples." (%)
    public static let packetLossClearThreshold = 1.0
    /// The window of the packet-loss rule, in samples.
    public static let packetLossWindow = 7
    /// "The standard deviation of audio input levels for last 10 samples is less than or equals 1% of
    /// the maximum possible audio input level (32767) i.e. 327.67" (% of ``maximumAudioLevel``).
    public static let audioLevelRaiseThreshold = 1.0
    /// "… cleared if the standard deviation of audio input levels for last 10 samples is greater than
    /// 3% of the maximum possible audio input level" (% of ``maximumAudioLevel``), i.e. 983.01.
    public static let audioLevelClearThreshold = 3.0
    /// The maximum possible audio level, the 100 % of the audio thresholds.
    public static let maximumAudioLevel = 32767.0
    /// The window of the audio-level rules, in samples.
    public static let audioLevelWindow = 10

    // MARK: State

    /// The warnings active now.
    public private(set) var current: Set<QualityWarning> = []
    /// Every warning raised so far, in order: the report's `warnings`.
    public private(set) var raisedRecords: [WarningRecord] = []
    /// Every warning cleared so far, in order: the report's `warningsCleared`.
    public private(set) var clearedRecords: [ClearedWarningRecord] = []

    private var rtt = SampleWindow(capacity: Self.shortWindow)
    private var jitter = SampleWindow(capacity: Self.shortWindow)
    private var mos = SampleWindow(capacity: Self.shortWindow)
    private var packetLoss = SampleWindow(capacity: Self.packetLossWindow)
    private var inputLevel = SampleWindow(capacity: Self.audioLevelWindow)
    private var outputLevel = SampleWindow(capacity: Self.audioLevelWindow)

    /// Creates an engine with no samples and no active warnings.
    public init() {}

    /// Takes the next one-second sample and raises or clears warnings.
    ///
    /// - Parameters:
    ///   - sample: the sample; its `timestamp` (ms since the epoch) stamps any record it produces.
    ///   - muted: whether the call's audio input is muted at this sample (suppresses
    ///     constant-audio-input-level).
    ///   - onHold: whether the call is on hold at this sample (suppresses constant-audio-output-level).
    /// - Returns: the active warnings before and after, and the records this sample added.
    public mutating func ingest(_ sample: StatsSample, muted: Bool = false, onHold: Bool = false) -> WarningsUpdate {
        let previous = current
        let timestamp = Self.milliseconds(sample.timestamp)
        var raised: [WarningRecord] = []
        var cleared: [ClearedWarningRecord] = []

        rtt.append(sample.rtt)
        jitter.append(sample.jitter)
        mos.append(sample.mos)
        packetLoss.append(sample.packetsLostFraction)

        evaluateAbove(.highRTT, window: rtt, threshold: Self.rttThreshold, at: timestamp, &raised, &cleared)
        evaluateAbove(.highJitter, window: jitter, threshold: Self.jitterThreshold, at: timestamp, &raised, &cleared)
        evaluateLowMOS(at: timestamp, &raised, &cleared)
        evaluatePacketLoss(at: timestamp, &raised, &cleared)

        if muted {
            inputLevel.removeAll()
            clear(.constantAudioInputLevel, at: timestamp, &cleared)
        } else {
            inputLevel.append(Double(sample.audioInputLevel))
            evaluateAudioLevel(.constantAudioInputLevel, window: inputLevel, at: timestamp, &raised, &cleared)
        }
        if onHold {
            outputLevel.removeAll()
            clear(.constantAudioOutputLevel, at: timestamp, &cleared)
        } else {
            outputLevel.append(Double(sample.audioOutputLevel))
            evaluateAudioLevel(.constantAudioOutputLevel, window: outputLevel, at: timestamp, &raised, &cleared)
        }

        return WarningsUpdate(current: current, previous: previous, raised: raised, cleared: cleared)
    }

    // MARK: Rules

    /// high-rtt, high-jitter: raised when at least three of the (up to five) window values are
    /// strictly above `threshold`; cleared when the window is full and all five are strictly below.
    /// The record's value is the mean of the values above the threshold.
    private mutating func evaluateAbove(
        _ warning: QualityWarning,
        window: SampleWindow,
        threshold: Double,
        at timestamp: Int64,
        _ raised: inout [WarningRecord],
        _ cleared: inout [ClearedWarningRecord]
    ) {
        if current.contains(warning) {
            if window.isFull && window.allSatisfy({ $0 < threshold }) {
                clear(warning, at: timestamp, &cleared)
            }
        } else if window.count(where: { $0 > threshold }) >= Self.badSamplesToRaise {
            let value = window.mean(where: { $0 > threshold })
            raise(warning, value: value, threshold: threshold, at: timestamp, &raised)
        }
    }

    /// low-mos: raised when at least three of the (up to five) window values are strictly below 3.5;
    /// cleared when the window is full and all five are strictly above 3.5. The record's value is
    /// the mean of the values below the threshold.
    private mutating func evaluateLowMOS(
        at timestamp: Int64,
        _ raised: inout [WarningRecord],
        _ cleared: inout [ClearedWarningRecord]
    ) {
        let threshold = Self.mosThreshold
        if current.contains(.lowMOS) {
            if mos.isFull && mos.allSatisfy({ $0 > threshold }) {
                clear(.lowMOS, at: timestamp, &cleared)
            }
        } else if mos.count(where: { $0 < threshold }) >= Self.badSamplesToRaise {
            let value = mos.mean(where: { $0 < threshold })
            raise(.lowMOS, value: value, threshold: threshold, at: timestamp, &raised)
        }
    }

    /// high-packets-lost-fraction: with a full window of seven, raised when the mean loss is above
    /// 3 %, cleared when it is 1 % or less; in between the state holds. The record's value is the
    /// mean loss (%).
    private mutating func evaluatePacketLoss(
        at timestamp: Int64,
        _ raised: inout [WarningRecord],
        _ cleared: inout [ClearedWarningRecord]
    ) {
        guard packetLoss.isFull else { return }
        let average = packetLoss.mean
        if current.contains(.highPacketsLostFraction) {
            if average <= Self.packetLossClearThreshold {
                clear(.highPacketsLostFraction, at: timestamp, &cleared)
            }
        } else if average > Self.packetLossRaiseThreshold {
            raise(.highPacketsLostFraction, value: average, threshold: Self.packetLossRaiseThreshold,
                  at: timestamp, &raised)
        }
    }

    /// constant-audio-*-level: with a full window of ten, raised when the population standard
    /// deviation is at most 1 % of 32767 (327.67), cleared when it is above 3 % (983.01). The
    /// record's value and threshold are percentages of 32767 (the example report's `"0.305590"` /
    /// `"1.000000"` is a standard deviation of about 100.13).
    private mutating func evaluateAudioLevel(
        _ warning: QualityWarning,
        window: SampleWindow,
        at timestamp: Int64,
        _ raised: inout [WarningRecord],
        _ cleared: inout [ClearedWarningRecord]
    ) {
        guard window.isFull else { return }
        let deviation = window.populationStandardDeviation
        if current.contains(warning) {
            if deviation > Self.audioLevelClearThreshold / 100 * Self.maximumAudioLevel {
                clear(warning, at: timestamp, &cleared)
            }
        } else if deviation <= Self.audioLevelRaiseThreshold / 100 * Self.maximumAudioLevel {
            raise(warning, value: deviation / Self.maximumAudioLevel * 100,
                  threshold: Self.audioLevelRaiseThreshold, at: timestamp, &raised)
        }
    }

    // MARK: Records

    private mutating func raise(
        _ warning: QualityWarning,
        value: Double,
        threshold: Double,
        at timestamp: Int64,
        _ raised: inout [WarningRecord]
    ) {
        current.insert(warning)
        let record = WarningRecord(
            name: warning.rawValue,
            values: FixedDecimalFormat.sixDecimals(value),
            threshold: FixedDecimalFormat.sixDecimals(threshold),
            timestamp: timestamp
        )
        raised.append(record)
        raisedRecords.append(record)
    }

    /// Clears `warning` if it is active; does nothing otherwise.
    private mutating func clear(_ warning: QualityWarning, at timestamp: Int64, _ cleared: inout [ClearedWarningRecord]) {
        guard current.remove(warning) != nil else { return }
        let record = ClearedWarningRecord(name: warning.rawValue, timestamp: timestamp)
        cleared.append(record)
        clearedRecords.append(record)
    }

    /// A sample timestamp (ms, fractional) as whole milliseconds, truncated like `Int64(_:)` but
    /// never trapping: NaN gives 0 and values beyond `Int64` clamp to its bounds.
    static func milliseconds(_ timestamp: Double) -> Int64 {
        if timestamp.isNaN { return 0 }
        if timestamp >= 9_223_372_036_854_775_808.0 { return .max }
        if timestamp < -9_223_372_036_854_775_808.0 { return .min }
        return Int64(timestamp)
    }
}

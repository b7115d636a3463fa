/// A warning raised during a test, as listed in the report's `warnings` array.
///
/// JSON shape of the reference report: `{"name": "...", "values": "0.305590",
/// "threshold": "1.000000", "timestamp": 1731699128298}`; `values` and `threshold` are strings
/// written with `"%f"`.
public struct WarningRecord: Sendable, Hashable, Codable {
    /// The warning's event name, e.g. `"high-rtt"`.
    public var name: String
    /// The measured value that raised it, in the threshold's unit, formatted `"%f"`.
    ///
    /// - high-rtt, high-jitter: mean of the window samples above the threshold (ms);
    /// - low-mos: mean of the window samples below the threshold (MOS);
    /// - high-packets-lost-fraction: mean loss over the last seven samples (%);
    /// - constant-audio-*-level: standard deviation of the last ten levels as % of 32767.
    public var values: String
    /// The threshold crossed, in the same unit as ``values``, formatted `"%f"`.
    public var threshold: String
    /// When it was raised: milliseconds since the Unix epoch.
    public var timestamp: Int64

    /// Creates a record.
    public init(name: String, values: String, threshold: String, timestamp: Int64) {
        self.name = name
        self.values = values
        self.threshold = threshold
        self.timestamp = timestamp
    }
}

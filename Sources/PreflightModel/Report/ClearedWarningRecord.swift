/// A warning cleared during a test, as listed in the report's `warningsCleared` array:
/// `{"name": "constant-audio-output-level", "timestamp": 1731699132313}`.
public struct ClearedWarningRecord: Sendable, Hashable, Codable {
    /// The warning's event name.
    public var name: String
    /// When it was cleared: milliseconds since the Unix epoch.
    public var timestamp: Int64

    /// Creates a record.
    public init(name: String, timestamp: Int64) {
        self.name = name
        self.timestamp = timestamp
    }
}

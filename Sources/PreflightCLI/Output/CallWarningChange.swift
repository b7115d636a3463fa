import PreflightCore

/// A quality warning raised or cleared during a call (from
/// `call:didReceiveQualityWarnings:previousWarnings:`): `{"name": "high-rtt", "change": "raised",
/// "timestamp": 1731699128298}`.
public struct CallWarningChange: Sendable, Hashable, Codable {
    /// Whether the warning came or went.
    public enum Change: String, Sendable, Hashable, Codable {
        /// The warning became active.
        case raised
        /// The warning stopped being active.
        case cleared
    }

    /// The warning's event name, e.g. `"high-rtt"`.
    public var name: String
    /// Raised or cleared.
    public var change: Change
    /// When: milliseconds since the Unix epoch.
    public var timestamp: Int64

    /// Creates a record.
    public init(name: String, change: Change, timestamp: Int64) {
        self.name = name
        self.change = change
        self.timestamp = timestamp
    }

    /// The changes between two sets of active warnings, raised first, each in name order.
    static func changes(from previous: Set<QualityWarning>, to current: Set<QualityWarning>, at timestamp: Int64) -> [CallWarningChange] {
        current.subtracting(previous).sorted().map { CallWarningChange(name: $0.rawValue, change: .raised, timestamp: timestamp) }
            + previous.subtracting(current).sorted().map { CallWarningChange(name: $0.rawValue, change: .cleared, timestamp: timestamp) }
    }
}

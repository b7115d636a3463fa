/// The state of a ``PreflightTest`` (Twilio's `TVOPreflightTestStatus`).
public enum PreflightTestStatus: String, Sendable, Hashable, Codable {
    /// Connecting to the edge has started.
    case connecting
    /// The connection to the edge is established (ICE connected) and media flows.
    case connected
    /// The test call ended and the report is complete.
    case completed
    /// The test stopped and failed (including ``PreflightTest/stop()``).
    case failed
}

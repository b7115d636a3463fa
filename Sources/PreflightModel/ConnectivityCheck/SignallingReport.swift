/// 100ms's `HMSSignallingReport`: how the check's signaling went.
public struct SignallingReport: Sendable, Hashable, Codable {
    /// Whether the signaling connection opened and the edge accepted the token.
    public var isConnected: Bool
    /// Whether the init endpoint answered.
    public var isInitConnected: Bool
    /// The signaling WebSocket URL the init endpoint gave (empty when it did not answer).
    public var websocketUrl: String

    /// Creates a report.
    public init(isConnected: Bool = false, isInitConnected: Bool = false, websocketUrl: String = "") {
        self.isConnected = isConnected
        self.isInitConnected = isInitConnected
        self.websocketUrl = websocketUrl
    }
}

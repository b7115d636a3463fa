/// One edge that roaming measured.
public struct EdgeCandidate: Sendable, Hashable, Codable {
    /// The URL the application gave.
    public var url: String
    /// The edge's name, from its init endpoint; empty when it did not answer.
    public var edge: String
    /// The median round-trip time of its STUN Binding pings, ms; `nil` when none was answered.
    public var rtt: Double?
    /// Pings sent to its media port.
    public var pingsSent: Int
    /// Pings it answered.
    public var pingsAnswered: Int
    /// Why it could not be measured (its init endpoint refused or was unreachable).
    public var error: ReportError?

    /// Creates a record.
    public init(url: String, edge: String = "", rtt: Double? = nil, pingsSent: Int = 0, pingsAnswered: Int = 0, error: ReportError? = nil) {
        self.url = url
        self.edge = edge
        self.rtt = rtt
        self.pingsSent = pingsSent
        self.pingsAnswered = pingsAnswered
        self.error = error
    }
}

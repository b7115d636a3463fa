import PreflightCore

/// A call's Insights event as the edge stores it.
public struct StoredCallEvent: Sendable, Hashable, Codable {
    /// `caller` or `callee`.
    public var party: String
    /// The event.
    public var event: InsightsEvent
    /// When the edge received it: milliseconds since the Unix epoch.
    public var receivedAt: Int64
    /// The edge that received it.
    public var edge: String
    /// The identity of the party that posted it (its token's): the owner its quota and an
    /// in-memory store's eviction count it against. Not read back (`""` in what ``ReportStore``
    /// reads).
    public var identity: String

    /// Creates a record.
    public init(party: String, event: InsightsEvent, receivedAt: Int64, edge: String, identity: String = "") {
        self.party = party
        self.event = event
        self.receivedAt = receivedAt
        self.edge = edge
        self.identity = identity
    }
}

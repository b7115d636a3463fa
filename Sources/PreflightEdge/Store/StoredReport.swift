import PreflightCore

/// A report as the edge stores it: who uploaded it (from their access token, never from the
/// report), which edge took it and when, the indexed fields and the report's JSON.
public struct StoredReport: Sendable, Hashable, Codable {
    /// The report's sid (its own, or one the edge made: `RP` and 32 hex digits).
    public var sid: String
    /// What produced it.
    public var kind: ReportKind
    /// The account of the uploading token (its `sub`).
    public var account: String
    /// The identity of the uploading token.
    public var identity: String
    /// The edge that stored it (its `--edge-name`).
    public var edge: String
    /// When the edge received it: milliseconds since the Unix epoch.
    public var receivedAt: Int64
    /// The indexed fields read from the report.
    public var summary: ReportSummary
    /// The report's JSON, as uploaded; empty in listings.
    public var body: String

    /// Creates a record.
    public init(
        sid: String, kind: ReportKind, account: String, identity: String, edge: String, receivedAt: Int64,
        summary: ReportSummary, body: String
    ) {
        self.sid = sid
        self.kind = kind
        self.account = account
        self.identity = identity
        self.edge = edge
        self.receivedAt = receivedAt
        self.summary = summary
        self.body = body
    }
}

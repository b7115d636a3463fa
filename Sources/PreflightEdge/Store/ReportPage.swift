/// One page of a listing, newest first.
public struct ReportPage: Sendable, Hashable, Codable {
    /// The reports, without their bodies.
    public var reports: [StoredReport]
    /// What to pass as `pageToken` for the next page; `nil` on the last one.
    public var nextPageToken: String?

    /// Creates a page.
    public init(reports: [StoredReport], nextPageToken: String?) {
        self.reports = reports
        self.nextPageToken = nextPageToken
    }
}

import PreflightCore

/// Which reports a listing or an aggregate covers; every field narrows, `nil` does not.
public struct ReportFilter: Sendable, Hashable {
    /// Received at or after: milliseconds since the Unix epoch.
    public var from: Int64?
    /// Received before: milliseconds since the Unix epoch.
    public var to: Int64?
    /// The uploading token's identity.
    public var identity: String?
    /// The edge that stored them.
    public var edge: String?
    /// What produced them.
    public var kind: ReportKind?
    /// The preflight test's `callQuality` (0 excellent … 4 degraded).
    public var callQuality: Int?
    /// Whether media needed TURN.
    public var isTurnRequired: Bool?
    /// The code of the error that ended them.
    public var errorCode: Int?

    /// Creates a filter; see each property.
    public init(
        from: Int64? = nil, to: Int64? = nil, identity: String? = nil, edge: String? = nil, kind: ReportKind? = nil,
        callQuality: Int? = nil, isTurnRequired: Bool? = nil, errorCode: Int? = nil
    ) {
        self.from = from
        self.to = to
        self.identity = identity
        self.edge = edge
        self.kind = kind
        self.callQuality = callQuality
        self.isTurnRequired = isTurnRequired
        self.errorCode = errorCode
    }
}

/// One stored report as listings give it (`GET /v1/reports`, `preflight report list`, the
/// dashboard): who uploaded it, where and when, and the fields the edge indexes; not its body.
public struct ReportListItem: Sendable, Hashable, Codable {
    /// The report's sid.
    public var sid: String
    /// What produced it.
    public var kind: ReportKind
    /// The uploading token's identity.
    public var identity: String
    /// The edge that stored it.
    public var edge: String
    /// When the edge received it: milliseconds since the Unix epoch.
    public var receivedAt: Int64
    /// The report's own `edge` (what the client asked for).
    public var requestedEdge: String?
    /// The report's `selectedEdge`.
    public var selectedEdge: String?
    /// 0 excellent … 4 degraded.
    public var callQuality: Int?
    /// Whether media needed TURN.
    public var isTurnRequired: Bool?
    /// The average MOS.
    public var mos: Double?
    /// The average RTT, ms.
    public var rtt: Double?
    /// The average jitter, ms.
    public var jitter: Double?
    /// The code of the error that ended it.
    public var errorCode: Int?

    /// Creates an item; see each property.
    public init(
        sid: String, kind: ReportKind, identity: String, edge: String, receivedAt: Int64, requestedEdge: String? = nil,
        selectedEdge: String? = nil, callQuality: Int? = nil, isTurnRequired: Bool? = nil, mos: Double? = nil, rtt: Double? = nil,
        jitter: Double? = nil, errorCode: Int? = nil
    ) {
        self.sid = sid
        self.kind = kind
        self.identity = identity
        self.edge = edge
        self.receivedAt = receivedAt
        self.requestedEdge = requestedEdge
        self.selectedEdge = selectedEdge
        self.callQuality = callQuality
        self.isTurnRequired = isTurnRequired
        self.mos = mos
        self.rtt = rtt
        self.jitter = jitter
        self.errorCode = errorCode
    }
}

/// The fields of an uploaded report the edge indexes and filters on, read from the report itself
/// by its kind. Each is `nil` when the report does not carry it (or carries another type).
public struct ReportSummary: Sendable, Hashable, Codable {
    /// The report's own sid (the preflight test's `callSid`); `nil` when it has none and the edge
    /// makes one.
    public var sid: String?
    /// The edge the client asked for (the report's `edge`).
    public var edge: String?
    /// The edge the client used (`selectedEdge`).
    public var selectedEdge: String?
    /// 0 excellent … 4 degraded (the preflight test's `callQuality`).
    public var callQuality: Int?
    /// Whether media needed a TURN relay.
    public var isTurnRequired: Bool?
    /// The average MOS.
    public var mos: Double?
    /// The average round-trip time, ms.
    public var rtt: Double?
    /// The average jitter, ms.
    public var jitter: Double?
    /// The code of the error that ended the test; `nil` when it succeeded.
    public var errorCode: Int?
    /// How long ICE took to connect, ms (the preflight test's `networkTiming.iceConnection.duration`).
    public var iceConnectionTime: Double?

    /// Creates a summary.
    public init(
        sid: String? = nil, edge: String? = nil, selectedEdge: String? = nil, callQuality: Int? = nil,
        isTurnRequired: Bool? = nil, mos: Double? = nil, rtt: Double? = nil, jitter: Double? = nil, errorCode: Int? = nil,
        iceConnectionTime: Double? = nil
    ) {
        self.sid = sid
        self.edge = edge
        self.selectedEdge = selectedEdge
        self.callQuality = callQuality
        self.isTurnRequired = isTurnRequired
        self.mos = mos
        self.rtt = rtt
        self.jitter = jitter
        self.errorCode = errorCode
        self.iceConnectionTime = iceConnectionTime
    }
}

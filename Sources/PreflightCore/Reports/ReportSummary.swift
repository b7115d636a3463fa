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

extension ReportSummary {
    /// The longest text an index column keeps, UTF-8 bytes: an edge's name or URL fits; a longer
    /// one stays in the report's body only.
    public static let maximumIndexedTextLength = 256
    /// The MOS a report may carry: 1–4.5 from the E-model (docs/measurement.md), 5 the scale's top,
    /// and 0 for a test that measured none (a report's average over no samples).
    public static let mosRange = 0.0...5.0
    /// The MOS values that are measurements (``mosRange`` without the 0 of none measured).
    public static let measuredMOSRange = 1.0...5.0
    /// The round-trip time and jitter a report may carry, ms: at most 10 minutes.
    public static let delayRange = 0.0...600_000.0
    /// The ICE connection time a report may carry, ms: at most an hour.
    public static let iceConnectionTimeRange = 0.0...3_600_000.0
    /// The error codes the index keeps (PostgreSQL's INTEGER holds them all).
    public static let errorCodeRange = 0...999_999

    /// The first measured field outside its range (or not a finite number), named with its value
    /// and range, for an upload's refusal; `nil` when every one is within its range.
    public var fieldOutOfRange: String? {
        func check(_ name: String, _ value: Double?, _ range: ClosedRange<Double>, _ unit: String) -> String? {
            guard let value, !(value.isFinite && range.contains(value)) else { return nil }
            return "\(name) \(value) is outside \(range.lowerBound.formatted)–\(range.upperBound.formatted)\(unit)"
        }
        return check("mos", mos, Self.mosRange, "")
            ?? check("rtt", rtt, Self.delayRange, " ms")
            ?? check("jitter", jitter, Self.delayRange, " ms")
            ?? check("iceConnectionTime", iceConnectionTime, Self.iceConnectionTimeRange, " ms")
    }

    /// This summary with every field within what the store indexes: text over
    /// ``maximumIndexedTextLength``, numbers outside their ranges or not finite, a call quality
    /// outside 0–4 and an error code outside ``errorCodeRange`` are left out (the body keeps them).
    public var indexable: ReportSummary {
        func text(_ value: String?) -> String? {
            value.flatMap { $0.utf8.count <= Self.maximumIndexedTextLength ? $0 : nil }
        }
        func number(_ value: Double?, _ range: ClosedRange<Double>) -> Double? {
            value.flatMap { $0.isFinite && range.contains($0) ? $0 : nil }
        }
        var summary = self
        summary.edge = text(edge)
        summary.selectedEdge = text(selectedEdge)
        summary.callQuality = callQuality.flatMap { (0...4).contains($0) ? $0 : nil }
        summary.errorCode = errorCode.flatMap { Self.errorCodeRange.contains($0) ? $0 : nil }
        summary.mos = number(mos, Self.mosRange)
        summary.rtt = number(rtt, Self.delayRange)
        summary.jitter = number(jitter, Self.delayRange)
        summary.iceConnectionTime = number(iceConnectionTime, Self.iceConnectionTimeRange)
        return summary
    }
}

extension Double {
    /// The shortest text of a bound: "1", "4.5", "600000".
    fileprivate var formatted: String {
        self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self)
    }
}

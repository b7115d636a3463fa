/// Telnyx's `PreCallDiagnosis`: the figures of a short test call, field for field (`mos`,
/// `quality`, `jitter` and `rtt` in **seconds**, byte and packet totals, the ICE candidates),
/// with Preflight's additions beside them: each metric's rating by Telnyx's guidelines, the loss,
/// and the codec.
public struct PreCallDiagnosis: Sendable, Hashable, Codable {
    /// Mean Opinion Score, 1–5: the mean of the call's once-a-second samples (docs/measurement.md);
    /// 0 when no sample had one.
    public let mos: Double
    /// Telnyx's category of ``mos``: ≥ 4 excellent, ≥ 3 good, ≥ 2 fair, below poor; unknown
    /// without a MOS.
    public let quality: QualityCategory
    /// Interarrival jitter of the worse direction, seconds.
    public let jitter: MetricSummary
    /// Round-trip time, seconds.
    public let rtt: MetricSummary
    /// RTP bytes sent, headers included.
    public let bytesSent: Int64
    /// RTP bytes received.
    public let bytesReceived: Int64
    /// RTP packets sent.
    public let packetsSent: Int64
    /// RTP packets received.
    public let packetsReceived: Int64
    /// The local candidates the call gathered.
    public let iceCandidates: [ICECandidateStats]

    // Preflight's additions.

    /// Telnyx's jitter guideline applied to the mean jitter (< 20 ms excellent … > 100 ms poor).
    public let jitterRating: MetricRating?
    /// Telnyx's RTT guideline applied to the mean RTT (< 100 ms excellent … > 400 ms poor).
    public let rttRating: MetricRating?
    /// Packets lost over the call, both directions, percent of those expected.
    public let packetLossPercent: Double
    /// Telnyx's loss guideline applied to ``packetLossPercent`` (< 1 % excellent … > 5 % poor).
    public let packetLossRating: MetricRating?
    /// The call's codec (`"PCMU"`, `"opus"`).
    public let codec: String
    /// Each change of the host's networks during the call (``NetworkChangeRecord``); `nil` when
    /// there was none.
    public var networkChanges: [NetworkChangeRecord]?

    /// Creates a diagnosis; the ratings and ``quality`` follow from the figures.
    public init(
        mos: Double, jitter: MetricSummary, rtt: MetricSummary, bytesSent: Int64, bytesReceived: Int64, packetsSent: Int64,
        packetsReceived: Int64, iceCandidates: [ICECandidateStats], packetLossPercent: Double, codec: String
    ) {
        self.mos = mos.isFinite && mos >= 1 ? mos : 0
        quality = QualityCategory(mos: self.mos >= 1 ? self.mos : nil)
        self.jitter = jitter
        self.rtt = rtt
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.packetsSent = packetsSent
        self.packetsReceived = packetsReceived
        self.iceCandidates = iceCandidates
        jitterRating = MetricRating(jitterMilliseconds: jitter.avg * 1000)
        rttRating = MetricRating(rttMilliseconds: rtt.avg * 1000)
        self.packetLossPercent = packetLossPercent
        packetLossRating = MetricRating(packetLossPercent: packetLossPercent)
        self.codec = codec
    }

    /// The diagnosis as plain values for analytics, as Telnyx's `toDictionary()`: numbers,
    /// strings, nested dictionaries for the summaries, and one dictionary per candidate.
    public func toDictionary() -> [String: Any] {
        func summary(_ value: MetricSummary) -> [String: Any] { ["min": value.min, "max": value.max, "avg": value.avg] }
        var dictionary: [String: Any] = [
            "mos": mos, "quality": quality.rawValue, "jitter": summary(jitter), "rtt": summary(rtt), "bytesSent": bytesSent,
            "bytesReceived": bytesReceived, "packetsSent": packetsSent, "packetsReceived": packetsReceived,
            "iceCandidates": iceCandidates.map { candidate -> [String: Any] in
                [
                    "candidateType": candidate.candidateType.rawValue, "protocol": candidate.protocol, "ip": candidate.ip,
                    "port": candidate.port, "priority": candidate.priority, "networkType": candidate.networkType,
                ]
            },
            "packetLossPercent": packetLossPercent, "codec": codec,
        ]
        if let jitterRating { dictionary["jitterRating"] = jitterRating.rawValue }
        if let rttRating { dictionary["rttRating"] = rttRating.rawValue }
        if let packetLossRating { dictionary["packetLossRating"] = packetLossRating.rawValue }
        return dictionary
    }
}

/// One candidate pair the ICE agent checked, in the shape of WebRTC's
/// `RTCIceCandidatePairStats`: the report's added `iceCandidatePairs` field, so a failed test
/// shows what was tried.
public struct ICECandidatePairRecord: Sendable, Hashable, Codable {
    /// The client's candidate.
    public var localCandidate: ICECandidateStats
    /// The edge's candidate.
    public var remoteCandidate: ICECandidateStats
    /// `frozen`, `waiting`, `in-progress`, `succeeded` or `failed`.
    public var state: String
    /// Whether the pair was nominated.
    public var nominated: Bool
    /// The pair priority (RFC 8445 §6.1.2.3).
    public var priority: UInt64
    /// Connectivity checks sent, retransmissions included.
    public var requestsSent: Int
    /// Success responses received.
    public var responsesReceived: Int
    /// The latest check's round-trip time, seconds (WebRTC's unit for this field).
    public var currentRoundTripTime: Double?
    /// The STUN error a check was refused with, e.g. `"401 Unauthorized"`.
    public var error: String?

    /// Creates a record.
    public init(
        localCandidate: ICECandidateStats, remoteCandidate: ICECandidateStats, state: String, nominated: Bool,
        priority: UInt64, requestsSent: Int, responsesReceived: Int, currentRoundTripTime: Double? = nil, error: String? = nil
    ) {
        self.localCandidate = localCandidate
        self.remoteCandidate = remoteCandidate
        self.state = state
        self.nominated = nominated
        self.priority = priority
        self.requestsSent = requestsSent
        self.responsesReceived = responsesReceived
        self.currentRoundTripTime = currentRoundTripTime
        self.error = error
    }
}

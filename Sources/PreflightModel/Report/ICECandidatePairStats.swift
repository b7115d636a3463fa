/// The candidate pair that media flowed over: the report's `selectedIceCandidatePair`.
public struct ICECandidatePairStats: Sendable, Hashable, Codable {
    /// The client's candidate.
    public var localCandidate: ICECandidateStats
    /// The edge's candidate.
    public var remoteCandidate: ICECandidateStats

    /// Creates a pair.
    public init(localCandidate: ICECandidateStats, remoteCandidate: ICECandidateStats) {
        self.localCandidate = localCandidate
        self.remoteCandidate = remoteCandidate
    }

    /// Whether either side is a TURN relay candidate: the report's `isTurnRequired`.
    public var usesRelay: Bool {
        localCandidate.candidateType == .relay || remoteCandidate.candidateType == .relay
    }
}

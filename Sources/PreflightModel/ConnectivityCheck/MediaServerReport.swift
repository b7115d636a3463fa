/// 100ms's `HMSMediaServerReport`: the check's two media connections to the edge and what
/// flowed on them. The JSON keeps 100ms's spelling `isSubcribeICEConnected`; Swift code reads
/// ``isSubscribeICEConnected``.
public struct MediaServerReport: Sendable, Hashable, Codable {
    /// Whether the publish connection passed ICE.
    public var isPublishICEConnected: Bool
    /// Whether the subscribe connection passed ICE (JSON: `isSubcribeICEConnected`, as 100ms spells it).
    public var isSubscribeICEConnected: Bool
    /// The connection's quality, 0–5 (5 best): ``ConnectionQualityScore`` of the E-model MOS
    /// from the publish RTT, the subscribe jitter and the loss of both ways.
    public var connectionQualityScore: ConnectionQualityScore
    /// Audio and video figures.
    public var stats: MediaStats
    /// The publish connection's local candidates.
    public var publishIceCandidatesGathered: [ICECandidateStats]
    /// The subscribe connection's local candidates.
    public var subscribeIceCandidatesGathered: [ICECandidateStats]
    /// The publish connection's selected pair; absent when it never connected.
    public var publishICECandidatePairSelected: ICECandidatePairStats?
    /// The subscribe connection's selected pair; absent when it never connected.
    public var subscribeICECandidatePairSelected: ICECandidatePairStats?

    enum CodingKeys: String, CodingKey {
        case isPublishICEConnected
        case isSubscribeICEConnected = "isSubcribeICEConnected"
        case connectionQualityScore, stats, publishIceCandidatesGathered, subscribeIceCandidatesGathered
        case publishICECandidatePairSelected, subscribeICECandidatePairSelected
    }

    /// Creates a report of a check that connected nothing yet.
    public init(
        isPublishICEConnected: Bool = false, isSubscribeICEConnected: Bool = false,
        connectionQualityScore: ConnectionQualityScore = .noData, stats: MediaStats = MediaStats(),
        publishIceCandidatesGathered: [ICECandidateStats] = [], subscribeIceCandidatesGathered: [ICECandidateStats] = [],
        publishICECandidatePairSelected: ICECandidatePairStats? = nil, subscribeICECandidatePairSelected: ICECandidatePairStats? = nil
    ) {
        self.isPublishICEConnected = isPublishICEConnected
        self.isSubscribeICEConnected = isSubscribeICEConnected
        self.connectionQualityScore = connectionQualityScore
        self.stats = stats
        self.publishIceCandidatesGathered = publishIceCandidatesGathered
        self.subscribeIceCandidatesGathered = subscribeIceCandidatesGathered
        self.publishICECandidatePairSelected = publishICECandidatePairSelected
        self.subscribeICECandidatePairSelected = subscribeICECandidatePairSelected
    }
}

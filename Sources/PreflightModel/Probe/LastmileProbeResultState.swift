/// How a last-mile probe ended, as Agora's `AgoraLastmileProbeResultState` (raw values 1–3 in
/// ``agoraValue``; JSON carries the names).
public enum LastmileProbeResultState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Every direction asked for has a bandwidth estimate (or holds at least its expected bitrate).
    case complete
    /// The probe ran, but a direction has no accepted bandwidth estimate: too few packets after
    /// the queueing knee, two halves that disagree, or packets dropped in the local receive buffer.
    case incompleteNoBwe
    /// Nothing was probed: the edge could not be reached or media did not connect.
    case unavailable

    /// Agora's raw value: 1 complete, 2 incompleteNoBwe, 3 unavailable.
    public var agoraValue: Int {
        switch self {
        case .complete: 1
        case .incompleteNoBwe: 2
        case .unavailable: 3
        }
    }
}

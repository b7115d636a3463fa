/// 100ms's `HMSConnectivityCheckState`: how far a connectivity check got, in the order the steps
/// happen. Progress reports each state once as it is reached; the result's `state` is the last
/// one reached (``completed`` only when the check ran its full course). In JSON, its name.
public enum ConnectivityCheckState: Int, Sendable, Hashable, CaseIterable, Comparable, Codable, CustomStringConvertible {
    /// The check began.
    case starting
    /// The init endpoint answered with the signaling URL and the ICE servers.
    case initFetched
    /// The signaling connection is open and the edge accepted the token.
    case signallingConnected
    /// Both media connections (publish and subscribe) passed ICE.
    case iceEstablished
    /// Local media (audio and video frames) was captured.
    case mediaCaptured
    /// Media went out on the publish connection and came back on the subscribe connection.
    case mediaPublished
    /// The check ran its full course.
    case completed

    /// The state's name, as 100ms spells it.
    public var description: String {
        switch self {
        case .starting: "starting"
        case .initFetched: "initFetched"
        case .signallingConnected: "signallingConnected"
        case .iceEstablished: "iceEstablished"
        case .mediaCaptured: "mediaCaptured"
        case .mediaPublished: "mediaPublished"
        case .completed: "completed"
        }
    }

    /// Orders by progress.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Decodes the state's name.
    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let state = Self.allCases.first(where: { $0.description == name }) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown connectivity state"))
        }
        self = state
    }

    /// Encodes the state's name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// One state change of the connection, as the Insights events of "Twilio Voice SDK: TVOCall" name
/// them: the report's added `timeline` field records them in order with their times.
public struct ConnectionStateEvent: Sendable, Hashable, Codable {
    /// The Insights group of a state change.
    public struct Group: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The group's name, e.g. `"ice-connection-state"`.
        public var rawValue: String
        /// Creates a group from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// `ice-gathering-state`: new, gathering, complete.
        public static let iceGatheringState = Self(rawValue: "ice-gathering-state")
        /// `ice-connection-state`: new, checking, connected, completed, disconnected, failed, closed.
        public static let iceConnectionState = Self(rawValue: "ice-connection-state")
        /// `pc-connection-state`: new, connecting, connected, disconnected, failed, closed.
        public static let peerConnectionState = Self(rawValue: "pc-connection-state")
        /// `signaling-state`: stable, have-local-offer, have-remote-offer, …, closed.
        public static let signalingState = Self(rawValue: "signaling-state")
        /// `ice-candidate`: `ice-candidate` for each gathered candidate, `selected-ice-candidate-pair`.
        public static let iceCandidate = Self(rawValue: "ice-candidate")
        /// The name.
        public var description: String { rawValue }
    }

    /// The group, e.g. `ice-connection-state`.
    public var group: Group
    /// The event's name within the group: the new state (`"checking"`), or `ice-candidate`.
    public var name: String
    /// When it happened, milliseconds since the Unix epoch (monotonic within a test).
    public var timestamp: Int64
    /// What it concerns, when there is more to say (a candidate, the selected pair, a reason).
    public var detail: String?

    /// Creates an event.
    public init(group: Group, name: String, timestamp: Int64, detail: String? = nil) {
        self.group = group
        self.name = name
        self.timestamp = timestamp
        self.detail = detail
    }
}

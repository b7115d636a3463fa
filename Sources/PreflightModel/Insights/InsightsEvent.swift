/// One event a call reports to Insights ("Twilio Voice SDK: TVOCall", Insights): its group and
/// name as the reference's tables list them, when it happened, and what it concerns. The edge
/// keeps a call's events and serves them at `GET /v1/calls/{sid}/events` (docs/protocol.md).
public struct InsightsEvent: Sendable, Hashable, Codable {
    /// The group: `connection`, `pc-connection-state`, `ice-candidate`, `ice-connection-state`,
    /// `ice-gathering-state`, `signaling-state`, `network-quality-warning-raised`,
    /// `network-quality-warning-cleared`, `audio-level-warning-raised`,
    /// `audio-level-warning-cleared`, `feedback`, or Preflight's `network-information` (``Group``).
    public var group: String
    /// The event's name within its group, e.g. `ringing`, `checking`, `high-rtt`, `received`.
    public var name: String
    /// When it happened: milliseconds since the Unix epoch.
    public var timestamp: Int64
    /// What it concerns, as text fields: a candidate's type, address and port, a warning's value
    /// and threshold, an error's code and message, the feedback's score and issue.
    public var payload: [String: String]

    /// The longest group or name, in bytes.
    public static let maximumNameLength = 64
    /// The most payload fields of one event.
    public static let maximumPayloadFields = 16
    /// The longest payload key, in bytes.
    public static let maximumKeyLength = 64
    /// The longest payload value, in bytes.
    public static let maximumValueLength = 512

    /// Creates an event.
    public init(group: String, name: String, timestamp: Int64, payload: [String: String] = [:]) {
        self.group = group
        self.name = name
        self.timestamp = timestamp
        self.payload = payload
    }

    /// Creates an event of one of the reference's groups.
    public init(_ group: Group, _ name: String, timestamp: Int64, payload: [String: String] = [:]) {
        self.init(group: group.rawValue, name: name, timestamp: timestamp, payload: payload)
    }

    /// Whether every field is within the limits above (the edge refuses an event that is not).
    public var isWithinLimits: Bool {
        group.utf8.count <= Self.maximumNameLength && name.utf8.count <= Self.maximumNameLength
            && payload.count <= Self.maximumPayloadFields
            && payload.allSatisfy { $0.key.utf8.count <= Self.maximumKeyLength && $0.value.utf8.count <= Self.maximumValueLength }
    }

    /// The groups of the reference's Insights tables.
    public enum Group: String, Sendable, Hashable, Codable, CaseIterable {
        /// The call's own changes (``CallInsightsEvent``).
        case connection
        /// The peer connection's state.
        case peerConnectionState = "pc-connection-state"
        /// `ice-candidate` for each candidate, `selected-ice-candidate-pair`.
        case iceCandidate = "ice-candidate"
        /// The ICE connection state.
        case iceConnectionState = "ice-connection-state"
        /// The ICE gathering state.
        case iceGatheringState = "ice-gathering-state"
        /// The signaling state (offer and answer).
        case signalingState = "signaling-state"
        /// A network-quality warning raised (high-rtt, high-jitter, low-mos, high-packets-lost-fraction).
        case networkQualityWarningRaised = "network-quality-warning-raised"
        /// A network-quality warning cleared.
        case networkQualityWarningCleared = "network-quality-warning-cleared"
        /// An audio-level warning raised (constant-audio-input-level, constant-audio-output-level).
        case audioLevelWarningRaised = "audio-level-warning-raised"
        /// An audio-level warning cleared.
        case audioLevelWarningCleared = "audio-level-warning-cleared"
        /// Feedback posted for the call: `received` or `received-none`.
        case feedback
        /// Preflight's, beside the reference's groups: `network-change`, a change of the host's
        /// networks (from, to, reason, gap: ``NetworkChangeRecord``).
        case networkInformation = "network-information"
    }
}

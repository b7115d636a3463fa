/// One change of the host's networks during a run, as its report and the call's Insights record it
/// (``NetworkSwitchTracker`` decides what it says): when it happened, the network media used
/// before and after, why, and what it cost.
public struct NetworkChangeRecord: Sendable, Hashable, Codable {
    /// Why the networks changed, as far as the run is concerned.
    public enum Reason: String, Sendable, Hashable, Codable {
        /// A network more preferred than the one in use appeared: media moves to it once its
        /// pair is checked (make before break).
        case preferredNetworkAppeared = "preferred-network-appeared"
        /// The network media used went away: media moves to the best one left at once.
        case networkLost = "network-lost"
        /// A network no more preferred than the one in use appeared: media stays.
        case networkAppeared = "network-appeared"
        /// A network media did not use went away: media stays.
        case otherNetworkLost = "other-network-lost"
    }

    /// When the change happened: milliseconds since the Unix epoch.
    public var timestamp: Int64
    /// The interface media used before (`nil`: none yet, or not known).
    public var from: String?
    /// Its type as the reference names it (`WIFI`, `CELLULAR`…).
    public var fromType: String?
    /// The interface media used after (`nil`: none, the run ended before media moved).
    public var to: String?
    /// Its type.
    public var toType: String?
    /// Why.
    public var reason: Reason
    /// How long media had no path: from the loss of the one in use until the next was selected,
    /// in milliseconds (0 when the old path worked until the new one took over).
    public var gapMilliseconds: Int64
    /// From the change until media used its network, in milliseconds (0 when media stayed).
    public var switchMilliseconds: Int64

    /// Creates a record.
    public init(
        timestamp: Int64, from: HostNetwork?, to: HostNetwork?, reason: Reason, gapMilliseconds: Int64, switchMilliseconds: Int64
    ) {
        self.timestamp = timestamp
        self.from = from?.interfaceName
        fromType = from?.type.description
        self.to = to?.interfaceName
        toType = to?.type.description
        self.reason = reason
        self.gapMilliseconds = gapMilliseconds
        self.switchMilliseconds = switchMilliseconds
    }

    /// The record as Insights payload fields (`network-information` / `network-change`).
    public var insightsPayload: [String: String] {
        var payload = ["reason": reason.rawValue, "gap": "\(gapMilliseconds)", "switchTime": "\(switchMilliseconds)"]
        payload["from"] = from
        payload["fromType"] = fromType
        payload["to"] = to
        payload["toType"] = toType
        return payload
    }
}

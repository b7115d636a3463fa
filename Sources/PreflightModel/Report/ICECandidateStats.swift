/// One ICE candidate, in the shape of the example report's `iceCandidates` entries
/// (WebRTC `RTCIceCandidateStats` as Twilio's Voice mobile SDK writes it).
public struct ICECandidateStats: Sendable, Hashable, Codable {
    /// host, srflx, prflx or relay.
    public var candidateType: ICECandidateType
    /// The transport the candidate belongs to (`"0"` for the single audio transport).
    public var transportId: String
    /// `"udp"` or `"tcp"`: the candidate's transport protocol.
    public var `protocol`: String
    /// The network's cost, as WebRTC rates it (0 for wired/loopback, 10 for Wi-Fi, 900 cellular).
    public var networkCost: Int
    /// An identifier of the network interface the candidate was gathered on.
    public var networkId: Int
    /// The STUN or TURN server URL the candidate came from; empty for host candidates.
    public var url: String
    /// The candidate's ICE priority (RFC 8445 §5.1.2), 0 to 2³²−1.
    public var priority: Int
    /// `"Ethernet"`, `"Wifi"`, `"Cellular"`, `"Vpn"`, `"Loopback"` or `"Unknown"`.
    public var networkType: String
    /// For reflexive and relay candidates the base's address; empty otherwise.
    public var relatedAddress: String
    /// Whether the candidate was removed during gathering.
    public var deleted: Bool
    /// The candidate's IP address, IPv4 dotted or IPv6 text.
    public var ip: String
    /// `"active"`, `"passive"` or `"so"` for TCP candidates; empty for UDP.
    public var tcpType: String
    /// Whether the candidate is the remote side's (the edge's).
    public var isRemote: Bool
    /// For reflexive and relay candidates the base's port; 0 otherwise.
    public var relatedPort: Int
    /// The candidate's port.
    public var port: Int

    /// Creates a candidate; optional details default to the values the reference report uses when unknown.
    public init(
        candidateType: ICECandidateType,
        transportId: String = "0",
        protocol: String = "udp",
        networkCost: Int = 0,
        networkId: Int = 0,
        url: String = "",
        priority: Int,
        networkType: String = "Unknown",
        relatedAddress: String = "",
        deleted: Bool = false,
        ip: String,
        tcpType: String = "",
        isRemote: Bool,
        relatedPort: Int = 0,
        port: Int
    ) {
        self.candidateType = candidateType
        self.transportId = transportId
        self.protocol = `protocol`
        self.networkCost = networkCost
        self.networkId = networkId
        self.url = url
        self.priority = priority
        self.networkType = networkType
        self.relatedAddress = relatedAddress
        self.deleted = deleted
        self.ip = ip
        self.tcpType = tcpType
        self.isRemote = isRemote
        self.relatedPort = relatedPort
        self.port = port
    }
}

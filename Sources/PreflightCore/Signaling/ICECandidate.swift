/// An ICE candidate (RFC 8445 §5.1) as exchanged in signaling, with the SDP `candidate`
/// attribute syntax of RFC 8839 §5.1 for interoperability.
public struct ICECandidate: Sendable, Hashable, Codable {
    /// Identifies candidates of the same type, base and server (1–32 ice-chars).
    public var foundation: String
    /// The component: 1 for RTP (RTCP is multiplexed, RFC 5761).
    public var component: Int
    /// `"udp"` or `"tcp"`.
    public var transport: String
    /// The candidate's priority, 0…2³²−1 (RFC 8445 §5.1.2).
    public var priority: UInt32
    /// The candidate's IP address, IPv4 dotted or IPv6 text.
    public var address: String
    /// The candidate's port.
    public var port: UInt16
    /// host, srflx, prflx or relay.
    public var type: ICECandidateType
    /// For reflexive and relayed candidates, the base's address.
    public var relatedAddress: String?
    /// For reflexive and relayed candidates, the base's port.
    public var relatedPort: UInt16?
    /// For TCP candidates: `"active"`, `"passive"` or `"so"` (RFC 6544).
    public var tcpType: String?

    /// Creates a candidate.
    public init(
        foundation: String, component: Int = 1, transport: String = "udp", priority: UInt32,
        address: String, port: UInt16, type: ICECandidateType,
        relatedAddress: String? = nil, relatedPort: UInt16? = nil, tcpType: String? = nil
    ) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.address = address
        self.port = port
        self.type = type
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
        self.tcpType = tcpType
    }

    /// Checks what a peer sent: a foundation of 1–32 ice-chars, component 1–256, transport
    /// `udp` or `tcp`, the address (and a related address) an IP literal.
    /// - Throws: ``PreflightError`` `.malformed`, naming the field.
    public func validate() throws(PreflightError) {
        guard (1...32).contains(foundation.utf8.count), foundation.utf8.allSatisfy(Self.isICEChar) else {
            throw PreflightError(
                code: .malformed, message: "ICE: a candidate's foundation must be 1 to 32 ice-chars, got \(UntrustedText.quoted(foundation))")
        }
        guard (1...256).contains(component), ["udp", "tcp"].contains(transport.lowercased()) else {
            throw PreflightError(
                code: .malformed,
                message: "ICE: a candidate needs component 1 to 256 and transport udp or tcp, got \(component) \(UntrustedText.quoted(transport))")
        }
        guard TransportAddress(host: address, port: port) != nil, relatedAddress.map({ TransportAddress(host: $0, port: 0) != nil }) ?? true else {
            throw PreflightError(
                code: .malformed, message: "ICE: a candidate's address must be an IP address, got \(UntrustedText.quoted(address))")
        }
    }

    /// The RFC 8445 §5.1.2.1 priority: 2²⁴·type preference + 2⁸·local preference + (256 − component).
    /// - Parameters:
    ///   - typePreference: 0…126 (RFC 8445 recommends 126 host, 110 prflx, 100 srflx, 0 relay).
    ///   - localPreference: 0…65535, to order interfaces (65535 for the only or best one).
    ///   - component: the component ID, 1…256.
    public static func priority(typePreference: Int, localPreference: Int, component: Int) -> UInt32 {
        let type = UInt32(clamping: min(max(typePreference, 0), 126))
        let local = UInt32(clamping: min(max(localPreference, 0), 65535))
        let component = UInt32(clamping: min(max(component, 1), 256))
        return type << 24 | local << 8 | (256 - component)
    }

    /// The local preference inside ``priority`` (bits 8–23), which a peer-reflexive candidate
    /// learned from this one keeps (RFC 8445 §7.1.1).
    public var localPreference: Int { Int(priority >> 8 & 0xFFFF) }

    /// The recommended type preference of RFC 8445 §5.1.2.2 for a candidate type.
    public static func recommendedTypePreference(for type: ICECandidateType) -> Int {
        switch type {
        case .host: 126
        case .peerReflexive: 110
        case .serverReflexive: 100
        default: 0
        }
    }
}

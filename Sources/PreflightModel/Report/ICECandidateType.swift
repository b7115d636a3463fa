/// The type of an ICE candidate (RFC 8445 §5.1.1), as the report's `candidateType` string.
///
/// An open set: values other than the four standard ones (the reference report shows `"local"`
/// for the remote side) are kept as they are.
public struct ICECandidateType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The type as written in reports and SDP (`"host"`, `"srflx"`, `"prflx"`, `"relay"`, …).
    public var rawValue: String

    /// Creates a type from its name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A candidate on a local interface.
    public static let host = Self(rawValue: "host")
    /// A server-reflexive candidate: the address a STUN server saw (the NAT's outside).
    public static let serverReflexive = Self(rawValue: "srflx")
    /// A peer-reflexive candidate, learned from a connectivity check.
    public static let peerReflexive = Self(rawValue: "prflx")
    /// A relayed candidate allocated on a TURN server.
    public static let relay = Self(rawValue: "relay")

    /// The raw name.
    public var description: String { rawValue }

    /// Decodes from a plain JSON string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes as a plain JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

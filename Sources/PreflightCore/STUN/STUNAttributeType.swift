/// A STUN attribute type number (RFC 8489 §14, RFC 8656 §18, RFC 8445 §16.1).
///
/// Types 0x0000–0x7FFF are comprehension-required: a receiver that does not understand one must
/// reject the message; 0x8000–0xFFFF are comprehension-optional.
public struct STUNAttributeType: RawRepresentable, Hashable, Sendable, Comparable {
    /// The 16-bit type number.
    public var rawValue: UInt16

    /// Creates a type from its number.
    @inlinable
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Whether a receiver must understand this attribute (type < 0x8000).
    @inlinable public var isComprehensionRequired: Bool { rawValue < 0x8000 }

    /// Orders by number.
    @inlinable
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// MAPPED-ADDRESS (0x0001).
    public static let mappedAddress = Self(rawValue: 0x0001)
    /// USERNAME (0x0006).
    public static let username = Self(rawValue: 0x0006)
    /// MESSAGE-INTEGRITY (0x0008).
    public static let messageIntegrity = Self(rawValue: 0x0008)
    /// ERROR-CODE (0x0009).
    public static let errorCode = Self(rawValue: 0x0009)
    /// UNKNOWN-ATTRIBUTES (0x000A).
    public static let unknownAttributes = Self(rawValue: 0x000A)
    /// CHANNEL-NUMBER (0x000C, RFC 8656).
    public static let channelNumber = Self(rawValue: 0x000C)
    /// LIFETIME (0x000D, RFC 8656).
    public static let lifetime = Self(rawValue: 0x000D)
    /// XOR-PEER-ADDRESS (0x0012, RFC 8656).
    public static let xorPeerAddress = Self(rawValue: 0x0012)
    /// DATA (0x0013, RFC 8656).
    public static let data = Self(rawValue: 0x0013)
    /// REALM (0x0014).
    public static let realm = Self(rawValue: 0x0014)
    /// NONCE (0x0015).
    public static let nonce = Self(rawValue: 0x0015)
    /// XOR-RELAYED-ADDRESS (0x0016, RFC 8656).
    public static let xorRelayedAddress = Self(rawValue: 0x0016)
    /// REQUESTED-TRANSPORT (0x0019, RFC 8656).
    public static let requestedTransport = Self(rawValue: 0x0019)
    /// MESSAGE-INTEGRITY-SHA256 (0x001C).
    public static let messageIntegritySHA256 = Self(rawValue: 0x001C)
    /// PASSWORD-ALGORITHM (0x001D).
    public static let passwordAlgorithm = Self(rawValue: 0x001D)
    /// USERHASH (0x001E).
    public static let userhash = Self(rawValue: 0x001E)
    /// XOR-MAPPED-ADDRESS (0x0020).
    public static let xorMappedAddress = Self(rawValue: 0x0020)
    /// PRIORITY (0x0024, RFC 8445).
    public static let priority = Self(rawValue: 0x0024)
    /// USE-CANDIDATE (0x0025, RFC 8445).
    public static let useCandidate = Self(rawValue: 0x0025)
    /// PASSWORD-ALGORITHMS (0x8002).
    public static let passwordAlgorithms = Self(rawValue: 0x8002)
    /// SOFTWARE (0x8022).
    public static let software = Self(rawValue: 0x8022)
    /// ALTERNATE-SERVER (0x8023).
    public static let alternateServer = Self(rawValue: 0x8023)
    /// FINGERPRINT (0x8028).
    public static let fingerprint = Self(rawValue: 0x8028)
    /// ICE-CONTROLLED (0x8029, RFC 8445).
    public static let iceControlled = Self(rawValue: 0x8029)
    /// ICE-CONTROLLING (0x802A, RFC 8445).
    public static let iceControlling = Self(rawValue: 0x802A)
    /// CONSENT-NONCE (0xC0F1): Preflight's own, comprehension-optional, so any other STUN agent
    /// ignores it. The edge puts 16 random bytes in its consent request to a probe's client
    /// (docs/protocol.md, "Last-mile probe"), and only a Preflight client echoes them in its
    /// answer: another ICE agent that happens to hold the credentials a hostile client claimed
    /// answers without it, and grants nothing.
    public static let consentNonce = Self(rawValue: 0xC0F1)

    /// The longest CONSENT-NONCE a client echoes, bytes.
    public static let maximumConsentNonceLength = 32
}

/// One STUN attribute with its value decoded (RFC 8489 §14, TURN RFC 8656 §18, ICE RFC 8445 §16.1).
///
/// Byte-valued cases hold an `ArraySlice<UInt8>`: a decoded message's slices share the received
/// buffer instead of copying it. Attributes this type does not know are kept as ``unknown(type:value:)``
/// and re-encoded unchanged.
public enum STUNAttribute: Hashable, Sendable {
    /// MAPPED-ADDRESS (0x0001): the reflexive address, not obfuscated (legacy RFC 3489 servers).
    case mappedAddress(TransportAddress)
    /// XOR-MAPPED-ADDRESS (0x0020): the reflexive address, XORed with the magic cookie and transaction ID.
    case xorMappedAddress(TransportAddress)
    /// USERNAME (0x0006): UTF-8, at most 513 bytes; "remote-ufrag:local-ufrag" in ICE checks.
    case username(String)
    /// USERHASH (0x001E): SHA-256 of "username:realm", 32 bytes.
    case userhash(ArraySlice<UInt8>)
    /// MESSAGE-INTEGRITY (0x0008): the 20-byte HMAC-SHA1. Usually written by the encoder from a key.
    case messageIntegrity(ArraySlice<UInt8>)
    /// MESSAGE-INTEGRITY-SHA256 (0x001C): HMAC-SHA256, 16 to 32 bytes in steps of 4.
    case messageIntegritySHA256(ArraySlice<UInt8>)
    /// FINGERPRINT (0x8028): CRC-32 of the message XOR 0x5354554E. Usually written by the encoder.
    case fingerprint(UInt32)
    /// ERROR-CODE (0x0009): code 300–699 and reason phrase.
    case errorCode(STUNErrorCode)
    /// REALM (0x0014): UTF-8, the long-term credential realm.
    case realm(String)
    /// NONCE (0x0015): the server's nonce, kept as text.
    case nonce(String)
    /// SOFTWARE (0x8022): the agent's name and version.
    case software(String)
    /// ALTERNATE-SERVER (0x8023): where a 300 Try Alternate redirects to.
    case alternateServer(TransportAddress)
    /// UNKNOWN-ATTRIBUTES (0x000A): the types a 420 response did not understand.
    case unknownAttributes([UInt16])
    /// PASSWORD-ALGORITHM (0x001D): the algorithm the client chose.
    case passwordAlgorithm(STUNPasswordAlgorithm)
    /// PASSWORD-ALGORITHMS (0x8002): the algorithms a server offers.
    case passwordAlgorithms([STUNPasswordAlgorithm])
    /// PRIORITY (0x0024): the ICE priority of the peer-reflexive candidate.
    case priority(UInt32)
    /// USE-CANDIDATE (0x0025): the controlling agent nominates this pair (no value).
    case useCandidate
    /// ICE-CONTROLLED (0x8029): the sender is the controlled agent; the 64-bit tiebreaker.
    case iceControlled(UInt64)
    /// ICE-CONTROLLING (0x802A): the sender is the controlling agent; the 64-bit tiebreaker.
    case iceControlling(UInt64)
    /// XOR-PEER-ADDRESS (0x0012): a TURN peer's address.
    case xorPeerAddress(TransportAddress)
    /// XOR-RELAYED-ADDRESS (0x0016): the relayed address a TURN server allocated.
    case xorRelayedAddress(TransportAddress)
    /// LIFETIME (0x000D): the allocation's remaining lifetime in seconds.
    case lifetime(UInt32)
    /// REQUESTED-TRANSPORT (0x0019): the IP protocol number of the relayed transport (17 = UDP, 6 = TCP).
    case requestedTransport(UInt8)
    /// DATA (0x0013): application data in Send and Data indications.
    case data(ArraySlice<UInt8>)
    /// CHANNEL-NUMBER (0x000C): a TURN channel, 0x4000–0x4FFF.
    case channelNumber(UInt16)
    /// Any other attribute: its type and raw value (without padding), kept and re-encoded as is.
    case unknown(type: UInt16, value: ArraySlice<UInt8>)

    /// The attribute's type number.
    @inlinable
    public var type: STUNAttributeType {
        switch self {
        case .mappedAddress: .mappedAddress
        case .xorMappedAddress: .xorMappedAddress
        case .username: .username
        case .userhash: .userhash
        case .messageIntegrity: .messageIntegrity
        case .messageIntegritySHA256: .messageIntegritySHA256
        case .fingerprint: .fingerprint
        case .errorCode: .errorCode
        case .realm: .realm
        case .nonce: .nonce
        case .software: .software
        case .alternateServer: .alternateServer
        case .unknownAttributes: .unknownAttributes
        case .passwordAlgorithm: .passwordAlgorithm
        case .passwordAlgorithms: .passwordAlgorithms
        case .priority: .priority
        case .useCandidate: .useCandidate
        case .iceControlled: .iceControlled
        case .iceControlling: .iceControlling
        case .xorPeerAddress: .xorPeerAddress
        case .xorRelayedAddress: .xorRelayedAddress
        case .lifetime: .lifetime
        case .requestedTransport: .requestedTransport
        case .data: .data
        case .channelNumber: .channelNumber
        case .unknown(let type, _): STUNAttributeType(rawValue: type)
        }
    }
}

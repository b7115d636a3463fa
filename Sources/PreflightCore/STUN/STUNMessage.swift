/// A STUN message (RFC 8489): type, transaction ID and attributes in wire order.
///
/// Decode with ``init(decoding:)-(ArraySlice<UInt8>)``, encode with
/// ``encoded(integrityKey:useSHA256:fingerprint:padding:)``, and check a received message with
/// ``verifyIntegrity(key:)`` and ``verifyFingerprint()``, which work on the exact bytes received.
///
/// Attributes that follow MESSAGE-INTEGRITY (other than MESSAGE-INTEGRITY-SHA256 and FINGERPRINT), or
/// follow MESSAGE-INTEGRITY-SHA256 (other than FINGERPRINT), are not authenticated and RFC 8489 §14.5–14.6
/// says to ignore them. They stay in ``attributes`` so nothing is lost, but ``ignoredAttributes`` lists
/// them and the typed accessors (``username``, ``xorMappedAddress``, …) and
/// ``unknownComprehensionRequiredAttributes`` skip them.
///
/// Equality and hashing compare type, transaction ID and attributes only: not the padding byte, and not
/// the bytes a message was decoded from.
public struct STUNMessage: Hashable, Sendable {
    /// Method and class.
    public var type: STUNMessageType
    /// The 96-bit transaction ID.
    public var transactionID: STUNTransactionID
    /// All attributes, in wire order.
    public var attributes: [STUNAttribute]
    /// The byte used to pad attribute values to a multiple of 4 bytes. RFC 8489 asks senders for zero and
    /// receivers ignore it; the RFC 5769 test vectors use 0x20 (space). A decoded message remembers the
    /// byte of its first padding so that re-encoding reproduces the input exactly.
    public var padding: UInt8
    /// The bytes this message was decoded from, with the offsets verification needs; `nil` when built locally.
    @usableFromInline var received: ReceivedBytes?

    /// Creates a message.
    /// - Parameters:
    ///   - type: method and class.
    ///   - transactionID: the transaction ID; a fresh random one by default.
    ///   - attributes: attributes in wire order (MESSAGE-INTEGRITY and FINGERPRINT are usually added by the encoder).
    ///   - padding: the padding byte, zero by default.
    public init(
        type: STUNMessageType,
        transactionID: STUNTransactionID = .random(),
        attributes: [STUNAttribute] = [],
        padding: UInt8 = 0
    ) {
        self.type = type
        self.transactionID = transactionID
        self.attributes = attributes
        self.padding = padding
        self.received = nil
    }

    /// Whether type, transaction ID and attributes are equal.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.type == rhs.type && lhs.transactionID == rhs.transactionID && lhs.attributes == rhs.attributes
    }

    /// Hashes type, transaction ID and attributes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(type)
        hasher.combine(transactionID)
        hasher.combine(attributes)
    }
}

/// The received bytes of a decoded message and their validated layout.
@usableFromInline
struct ReceivedBytes: Sendable {
    /// The whole message as received (header included).
    @usableFromInline var bytes: ArraySlice<UInt8>
    /// Where the attributes, and the integrity attributes that count, are.
    @usableFromInline var layout: STUNMessageLayout

    @inlinable
    init(bytes: ArraySlice<UInt8>, layout: STUNMessageLayout) {
        self.bytes = bytes
        self.layout = layout
    }
}

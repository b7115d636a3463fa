/// A STUN password algorithm (RFC 8489 §18.5): how the long-term credential key is derived.
public struct STUNPasswordAlgorithm: Hashable, Sendable {
    /// The 16-bit algorithm number: 0x0001 MD5, 0x0002 SHA-256.
    public var number: UInt16
    /// Algorithm parameters (empty for MD5 and SHA-256).
    public var parameters: [UInt8]

    /// Creates an algorithm value.
    public init(number: UInt16, parameters: [UInt8] = []) {
        self.number = number
        self.parameters = parameters
    }

    /// MD5 (0x0001): the default key derivation, a 16-byte key.
    public static let md5 = Self(number: 0x0001)
    /// SHA-256 (0x0002): a 32-byte key.
    public static let sha256 = Self(number: 0x0002)
}

import Crypto
// Only for the byte-buffer conformances (ContiguousBytes, DataProtocol) swift-crypto's API takes.
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A MESSAGE-INTEGRITY key prepared once: the keyed HMAC-SHA1 and HMAC-SHA256 states are computed up front,
/// so each message only hashes its own bytes. Keep one per ICE session or TURN allocation for the hot path;
/// the `[UInt8]` overloads of ``STUNMessage/encoded(integrityKey:useSHA256:fingerprint:padding:)`` and
/// ``STUNMessage/verifyIntegrity(key:)`` key the HMAC again on every call.
public struct STUNIntegrityKey: Sendable {
    /// HMAC-SHA1 with the key absorbed, not yet fed any message bytes.
    @usableFromInline let sha1: HMAC<Insecure.SHA1>
    /// HMAC-SHA256 with the key absorbed, not yet fed any message bytes.
    @usableFromInline let sha256: HMAC<SHA256>

    /// Prepares `key` (see ``STUNCredentials/key()``).
    public init(_ key: [UInt8]) {
        let symmetricKey = SymmetricKey(data: key)
        sha1 = HMAC(key: symmetricKey)
        sha256 = HMAC(key: symmetricKey)
    }

    /// Prepares the key of `credentials`.
    /// - Throws: ``PreflightError/Code/invalidArgument`` for an unsupported password algorithm.
    public init(credentials: STUNCredentials) throws(PreflightError) {
        self.init(try credentials.key())
    }
}

/// Where an HMAC key comes from: raw bytes (keyed on use) or a prepared ``STUNIntegrityKey``.
@usableFromInline
enum IntegrityKeySource {
    case raw([UInt8])
    case prepared(STUNIntegrityKey)

    @inlinable
    func sha1() -> HMAC<Insecure.SHA1> {
        switch self {
        case .raw(let key): HMAC(key: SymmetricKey(data: key))
        case .prepared(let key): key.sha1
        }
    }

    @inlinable
    func sha256() -> HMAC<SHA256> {
        switch self {
        case .raw(let key): HMAC(key: SymmetricKey(data: key))
        case .prepared(let key): key.sha256
        }
    }
}

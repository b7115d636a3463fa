import Crypto

/// A MESSAGE-INTEGRITY key prepared once: the HMAC-SHA1 and HMAC-SHA256 key pads are absorbed up
/// front, so each message only hashes its own bytes. Keep one per ICE session or TURN allocation for
/// the hot path; the `[UInt8]` overloads of
/// ``STUNMessage/encoded(integrityKey:useSHA256:fingerprint:padding:)`` and
/// ``STUNMessage/verifyIntegrity(key:)`` prepare the key again on every call.
public struct STUNIntegrityKey: Sendable {
    /// The prepared states, shared by copies of the key (immutable, so sharing is safe).
    @usableFromInline final class Storage: Sendable {
        /// HMAC-SHA1 with the key absorbed.
        @usableFromInline let sha1: KeyedHash<SHA1>
        /// HMAC-SHA256 with the key absorbed.
        @usableFromInline let sha256: KeyedHash<SHA256>

        @usableFromInline
        init(_ key: [UInt8]) {
            sha1 = KeyedHash(key: key)
            sha256 = KeyedHash(key: key)
        }
    }

    @usableFromInline let storage: Storage

    /// Prepares `key` (see ``STUNCredentials/key()``).
    public init(_ key: [UInt8]) {
        storage = Storage(key)
    }

    /// Prepares the key of `credentials`.
    /// - Throws: ``PreflightError/Code/invalidArgument`` for an unsupported password algorithm.
    public init(credentials: STUNCredentials) throws(PreflightError) {
        self.init(try credentials.key())
    }
}

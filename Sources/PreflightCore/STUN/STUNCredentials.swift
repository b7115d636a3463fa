import Crypto
// Only for the byte-buffer conformances (ContiguousBytes, DataProtocol) swift-crypto's API takes.
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// STUN credentials (RFC 8489 §9) and the MESSAGE-INTEGRITY key they give.
public enum STUNCredentials: Hashable, Sendable {
    /// Short-term credentials (ICE connectivity checks): the key is the password after OpaqueString.
    case shortTerm(password: String)
    /// Long-term credentials (TURN): the key is MD5 (or SHA-256 for ``STUNPasswordAlgorithm/sha256``) of
    /// `username ":" OpaqueString(realm) ":" OpaqueString(password)` (RFC 8489 §9.2.2).
    case longTerm(username: String, realm: String, password: String, algorithm: STUNPasswordAlgorithm = .md5)

    /// The HMAC key: 16 bytes (MD5), 32 bytes (SHA-256), or the prepared password bytes (short-term).
    ///
    /// OpaqueString is approximated by SASLprep-style mapping (see `OpaqueString`): ASCII text is unchanged,
    /// characters RFC 3454 maps to nothing are dropped, non-ASCII spaces become U+0020 and a table of common
    /// compatibility characters is NFKC-folded. Other non-ASCII text is used as given.
    /// - Throws: ``PreflightError/Code/invalidArgument`` for a password algorithm other than MD5 or SHA-256.
    public func key() throws(PreflightError) -> [UInt8] {
        switch self {
        case .shortTerm(let password):
            return Array(OpaqueString.prepare(password).utf8)
        case .longTerm(let username, let realm, let password, let algorithm):
            var input = [UInt8]()
            input.append(contentsOf: username.utf8)
            input.append(UInt8(ascii: ":"))
            input.append(contentsOf: OpaqueString.prepare(realm).utf8)
            input.append(UInt8(ascii: ":"))
            input.append(contentsOf: OpaqueString.prepare(password).utf8)
            switch algorithm.number {
            case STUNPasswordAlgorithm.md5.number:
                return Array(Insecure.MD5.hash(data: input))
            case STUNPasswordAlgorithm.sha256.number:
                return Array(SHA256.hash(data: input))
            default:
                throw PreflightError(
                    code: .invalidArgument,
                    message: "STUN: password algorithm \(algorithm.number) is not supported (1 MD5, 2 SHA-256)")
            }
        }
    }
}

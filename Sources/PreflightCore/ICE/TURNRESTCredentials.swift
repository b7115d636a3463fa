import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Time-limited TURN credentials of the "TURN REST API" scheme that coturn verifies with
/// `use-auth-secret` and `static-auth-secret`: the username is `"<expiry>:<identity>"` (expiry in
/// Unix seconds) and the password is base64(HMAC-SHA1(secret, username)).
public struct TURNRESTCredentials: Sendable, Hashable {
    /// `"<expiry>:<identity>"`.
    public var username: String
    /// base64(HMAC-SHA1(secret, username)).
    public var password: String
    /// When the credentials stop working, Unix seconds.
    public var expiry: Int64

    /// Makes credentials for `identity` that expire at `expiry`.
    /// - Parameters:
    ///   - secret: the secret shared with the TURN server (coturn's `static-auth-secret`).
    ///   - identity: who the credentials are for (any text without a colon is safest; coturn
    ///     takes everything after the first colon).
    ///   - expiry: Unix seconds.
    public init(secret: String, identity: String, expiry: Int64) {
        let username = "\(expiry):\(identity)"
        let mac = HMAC<Insecure.SHA1>.authenticationCode(
            for: Array(username.utf8), using: SymmetricKey(data: Array(secret.utf8)))
        self.username = username
        self.password = Data(mac).base64EncodedString()
        self.expiry = expiry
    }

    /// Whether `username`/`password` were made with `secret` and have not expired at `now`
    /// (Unix seconds): what coturn checks.
    public static func verify(username: String, password: String, secret: String, now: Int64) -> Bool {
        guard let colon = username.firstIndex(of: ":"), let expiry = Int64(username[..<colon]), expiry > now else {
            return false
        }
        let expected = TURNRESTCredentials(secret: secret, identity: String(username[username.index(after: colon)...]), expiry: expiry)
        return expected.password == password
    }
}

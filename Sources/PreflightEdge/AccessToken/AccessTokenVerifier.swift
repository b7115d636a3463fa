import Foundation
import JWTKit
import PreflightCore

/// Verifies access tokens against the edge's API keys and says precisely why a token is refused,
/// with Twilio's codes (docs/errors.md): 20101 not a token, 20102 header (anything but HS256,
/// `alg: none` included, or a `crit` header), 20103 unknown issuer, no subject or a subject that is
/// not the key's account, 20107 bad signature, 20104 expired or no valid expiry, 20105 not yet
/// valid (`nbf` or `iat` in the future), 20157 lifetime over the maximum, 20106 missing grants.
///
/// Every time claim is range-checked (a finite number of seconds between 1970 and 9999) before
/// any arithmetic, so no value in a validly signed token can trap a conversion.
///
/// The signature is checked with jwt-kit, using the secret of the key named by the `iss` claim
/// (Twilio's tokens carry no `kid`); the header and claims are checked here so each failure
/// gets its own code.
public struct AccessTokenVerifier: Sendable {
    /// The `cty` header value of Twilio's access tokens.
    public static let contentType = "twilio-fpa;v=1"

    /// What the verifier accepts.
    public struct Configuration: Sendable {
        /// API key sid → secret. Tokens issued by other keys are refused (20103).
        public var apiKeys: [String: String]
        /// API key sid → the account sid the key belongs to: a token's subject must be its key's
        /// account (20103). A key without an entry accepts any non-empty subject; the edge gives
        /// every key one. Empty by default.
        public var accounts: [String: String]
        /// The longest lifetime (expiry minus issue time) accepted; 24 hours by default.
        public var maximumLifetime: Duration
        /// Tolerance for clock differences on expiry and not-before; 5 seconds by default.
        public var clockSkew: Duration

        /// Creates a configuration.
        public init(
            apiKeys: [String: String], accounts: [String: String] = [:], maximumLifetime: Duration = .seconds(86_400),
            clockSkew: Duration = .seconds(5)
        ) {
            self.apiKeys = apiKeys
            self.accounts = accounts
            self.maximumLifetime = maximumLifetime
            self.clockSkew = clockSkew
        }
    }

    /// The configuration in force.
    public let configuration: Configuration
    private let keys: [String: JWTKeyCollection]

    /// The shortest secret accepted, bytes: HS256 needs a key at least as long as its output.
    public static let minimumSecretLength = 32

    /// Creates a verifier.
    /// - Throws: ``PreflightError`` `.invalidArgument` when a secret is shorter than
    ///   ``minimumSecretLength`` bytes.
    public init(configuration: Configuration) async throws(PreflightError) {
        self.configuration = configuration
        var keys: [String: JWTKeyCollection] = [:]
        for (sid, secret) in configuration.apiKeys {
            try Self.checkSecret(secret, of: sid)
            keys[sid] = await JWTKeyCollection().add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        }
        self.keys = keys
    }

    /// Refuses secrets jwt-kit would reject (it asserts, which traps in debug builds).
    static func checkSecret(_ secret: String, of sid: String) throws(PreflightError) {
        guard secret.utf8.count >= minimumSecretLength else {
            throw PreflightError(
                code: .invalidArgument,
                message: "access token: the secret of API key \"\(sid)\" is \(secret.utf8.count) bytes, at least \(minimumSecretLength) are needed for HS256")
        }
    }

    /// Verifies `token` and returns its claims.
    /// - Parameters:
    ///   - token: the JWT in compact serialization.
    ///   - now: the time to judge expiry and not-before against.
    ///   - requireOutgoingGrant: whether the token must carry `grants.voice.outgoing.application_sid`
    ///     (a test call needs it).
    /// - Throws: ``PreflightError`` with one of the access-token codes listed on the type.
    public func verify(
        _ token: String, now: Date = Date(), requireOutgoingGrant: Bool = true
    ) async throws(PreflightError) -> AccessTokenClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        // The signature part may be empty (an unsigned `alg: none` token): the header check refuses those.
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw PreflightError(code: .invalidAccessToken, message: "access token: not a JWT (expected three dot-separated parts)")
        }
        let header: JWTHeader = try Self.decodePart(parts[0], what: "header", code: .invalidAccessToken)
        guard header.alg == "HS256" else {
            throw PreflightError(
                code: .invalidAccessTokenHeader,
                message: "access token: algorithm \(UntrustedText.quoted(header.alg ?? "missing")) refused, only HS256 is accepted")
        }
        if let type = header.typ, type != "JWT" {
            throw PreflightError(
                code: .invalidAccessTokenHeader, message: "access token: type \(UntrustedText.quoted(type)) is not JWT")
        }
        // RFC 7515 §4.1.11: extensions listed as critical must be understood; this verifier
        // understands none, so any `crit` is refused.
        if header.fields["crit"] != nil {
            throw PreflightError(
                code: .invalidAccessTokenHeader, message: "access token: critical header extensions (crit) are not supported")
        }
        let unverified: AccessTokenClaims = try Self.decodePart(parts[1], what: "payload", code: .invalidAccessToken)
        guard let collection = keys[unverified.iss] else {
            throw PreflightError(
                code: .invalidAccessTokenIssuer,
                message: "access token: issuer \(UntrustedText.quoted(unverified.iss)) is not a known API key")
        }
        guard !unverified.sub.isEmpty else {
            throw PreflightError(code: .invalidAccessTokenIssuer, message: "access token: subject (account) is empty")
        }
        let claims: AccessTokenClaims
        do {
            claims = try await collection.verify(token, as: AccessTokenClaims.self)
        } catch {
            throw PreflightError(
                code: .invalidAccessTokenSignature,
                message: "access token: signature does not match the secret of API key \"\(unverified.iss)\"",
                underlying: error)
        }
        // After the signature: an unsigned guess must not learn which account a key belongs to.
        if let account = configuration.accounts[claims.iss], claims.sub != account {
            throw PreflightError(
                code: .invalidAccessTokenIssuer,
                message: "access token: subject \(UntrustedText.quoted(claims.sub)) is not the account of API key \"\(claims.iss)\"")
        }
        try checkTimes(claims, now: now.timeIntervalSince1970)
        guard let identity = claims.grants.identity, !identity.isEmpty else {
            throw PreflightError(code: .invalidAccessTokenGrants, message: "access token: grants carry no identity")
        }
        // The identity is a key of the edge's tables and a column of every stored report.
        guard identity.utf8.count <= Self.maximumIdentityLength else {
            throw PreflightError(
                code: .invalidAccessTokenGrants,
                message: "access token: the identity is \(identity.utf8.count) bytes, over \(Self.maximumIdentityLength)")
        }
        if requireOutgoingGrant {
            guard let application = claims.grants.voice?.outgoing?.applicationSID, !application.isEmpty else {
                throw PreflightError(
                    code: .invalidAccessTokenGrants,
                    message: "access token: grants carry no voice.outgoing.application_sid to route the call")
            }
        }
        return claims
    }

    /// The longest identity a token may carry, UTF-8 bytes (Twilio allows 121 characters).
    public static let maximumIdentityLength = 256

    /// The latest time claim accepted, seconds since the epoch: 9999-12-31T23:59:59Z.
    public static let latestTime: Double = 253_402_300_799

    /// `value` as a time claim when it is a finite number of seconds from 1970 to 9999, else `nil`.
    static func validTime(_ value: Double?) -> Double?? {
        guard let value else { return .some(nil) }
        guard value.isFinite, value >= 0, value <= latestTime else { return nil }
        return .some(value)
    }

    private func checkTimes(_ claims: AccessTokenClaims, now: Double) throws(PreflightError) {
        let skew = configuration.clockSkew.inSeconds
        // Range checks first: every later conversion to whole seconds is then exact and safe.
        guard let expiry = Self.validTime(claims.exp) ?? nil else {
            throw PreflightError(code: .accessTokenExpired, message: "access token: no valid expiry (exp)")
        }
        guard let notBefore = Self.validTime(claims.nbf) else {
            throw PreflightError(code: .accessTokenNotYetValid, message: "access token: not-before (nbf) is not a valid time")
        }
        guard let issued = Self.validTime(claims.iat) else {
            throw PreflightError(code: .accessTokenNotYetValid, message: "access token: issue time (iat) is not a valid time")
        }
        let now = min(max(now, 0), Self.latestTime)
        guard now <= expiry + skew else {
            throw PreflightError(
                code: .accessTokenExpired, message: "access token: expired \(Int64(now - expiry)) s ago (exp \(Int64(expiry)))")
        }
        if let notBefore, now + skew < notBefore {
            throw PreflightError(
                code: .accessTokenNotYetValid,
                message: "access token: not valid for another \(Int64(notBefore - now)) s (nbf \(Int64(notBefore)))")
        }
        if let issued, now + skew < issued {
            throw PreflightError(
                code: .accessTokenNotYetValid,
                message: "access token: issued \(Int64(issued - now)) s in the future (iat \(Int64(issued)))")
        }
        let start = issued ?? notBefore ?? now
        let maximum = configuration.maximumLifetime.inSeconds
        guard expiry - start <= maximum else {
            throw PreflightError(
                code: .accessTokenLifetimeTooLong,
                message: "access token: lifetime \(Int64(expiry - start)) s exceeds the maximum \(Int64(maximum)) s")
        }
    }

    /// Decodes one base64url JSON part of the token.
    private static func decodePart<T: Decodable>(_ part: Substring, what: String, code: PreflightError.Code) throws(PreflightError) -> T {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        guard let data = Data(base64Encoded: text) else {
            throw PreflightError(code: code, message: "access token: \(what) is not base64url")
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw PreflightError(code: code, message: "access token: \(what) is not the expected JSON", underlying: error)
        }
    }
}

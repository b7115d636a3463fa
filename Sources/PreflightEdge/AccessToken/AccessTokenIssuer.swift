import Foundation
import JWTKit
import PreflightCore

/// Mints access tokens: JWTs signed with HS256 by an API key's secret, in Twilio's shape
/// (header `typ: JWT`, `cty: twilio-fpa;v=1`; claims ``AccessTokenClaims``). `preflight token`
/// uses it; deployments mint tokens on their own servers the same way.
public struct AccessTokenIssuer: Sendable {
    /// The API key sid: the tokens' issuer.
    public let apiKeySID: String
    /// The account sid: the tokens' subject.
    public let accountSID: String
    private let keys: JWTKeyCollection

    /// Creates an issuer for one API key.
    /// - Parameters:
    ///   - apiKeySID: the key's sid (`iss`).
    ///   - apiKeySecret: the key's secret, the HMAC key.
    ///   - accountSID: the account (`sub`).
    /// - Throws: ``PreflightError`` `.invalidArgument` for a secret shorter than 32 bytes (HS256
    ///   needs a key at least as long as its 32-byte output).
    public init(apiKeySID: String, apiKeySecret: String, accountSID: String) async throws(PreflightError) {
        try AccessTokenVerifier.checkSecret(apiKeySecret, of: apiKeySID)
        self.apiKeySID = apiKeySID
        self.accountSID = accountSID
        keys = await JWTKeyCollection().add(hmac: HMACKey(from: apiKeySecret), digestAlgorithm: .sha256)
    }

    /// Mints a token.
    /// - Parameters:
    ///   - identity: the user's identity (`grants.identity`).
    ///   - outgoingApplicationSID: the application outgoing calls reach; `nil` for no outgoing grant.
    ///   - incomingAllow: whether the identity may receive calls.
    ///   - lifetime: how long the token is valid; 1 hour by default (verifiers accept at most 24 hours).
    ///   - now: the issue time.
    ///   - notBefore: the earliest time the token is accepted; absent by default.
    /// - Throws: ``PreflightError`` `.invalidArgument` when signing fails.
    public func mint(
        identity: String,
        outgoingApplicationSID: String?,
        incomingAllow: Bool = false,
        lifetime: Duration = .seconds(3600),
        now: Date = Date(),
        notBefore: Date? = nil
    ) async throws(PreflightError) -> String {
        let issued = now.timeIntervalSince1970.rounded(.down)
        let expiry = issued + lifetime.inSeconds
        var random = SystemRandomNumberGenerator()
        let claims = AccessTokenClaims(
            jti: "\(apiKeySID)-\(Int64(issued))-\(String(random.next() as UInt32, radix: 16))",
            iss: apiKeySID, sub: accountSID, iat: issued,
            nbf: notBefore.map { $0.timeIntervalSince1970.rounded(.down) },
            exp: expiry.rounded(.down),
            grants: .init(
                identity: identity,
                voice: .init(
                    outgoing: outgoingApplicationSID.map { .init(applicationSID: $0) },
                    incoming: .init(allow: incomingAllow))))
        var header = JWTHeader()
        header.typ = "JWT"
        header.cty = AccessTokenVerifier.contentType
        do {
            return try await keys.sign(claims, header: header)
        } catch {
            throw PreflightError(code: .invalidArgument, message: "access token: signing failed", underlying: error)
        }
    }
}

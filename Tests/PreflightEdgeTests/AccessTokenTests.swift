import Crypto
import Foundation
import PreflightCore
import PreflightEdge
import Testing

@Suite struct AccessTokenTests {
    static let keySID = "SK0123456789abcdef0123456789abcdef"
    static let secret = "lab-secret-0123456789abcdefghijklmnop"
    static let account = "AC0123456789abcdef0123456789abcdef"
    static let application = "AP0123456789abcdef0123456789abcdef"
    static let now = Date(timeIntervalSince1970: 1_780_000_000)

    static func verifier() async throws -> AccessTokenVerifier {
        try await AccessTokenVerifier(configuration: .init(apiKeys: [keySID: secret, "SKother": "other-secret-0123456789abcdefghijklmn"]))
    }

    static func issuer(secret: String = secret) async throws -> AccessTokenIssuer {
        try await AccessTokenIssuer(apiKeySID: keySID, apiKeySecret: secret, accountSID: account)
    }

    static func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A token built by hand (JSON, base64url, HMAC-SHA256 from swift-crypto), independent of jwt-kit.
    static func handMade(header: String, payload: String, secret: String = secret) -> String {
        let signingInput = base64URL(Data(header.utf8)) + "." + base64URL(Data(payload.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Data(signingInput.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return signingInput + "." + base64URL(Data(mac))
    }

    static func payload(exp: Int = 1_780_003_600, nbf: Int? = nil, iat: Int = 1_780_000_000, iss: String = keySID,
                        sub: String = account, grants: String? = nil) -> String {
        let grantsJSON = grants ?? #"{"identity":"alice","voice":{"outgoing":{"application_sid":"\#(application)"},"incoming":{"allow":false}}}"#
        let nbfJSON = nbf.map { #","nbf":\#($0)"# } ?? ""
        return #"{"jti":"\#(iss)-1","iss":"\#(iss)","sub":"\#(sub)","iat":\#(iat),"exp":\#(exp)\#(nbfJSON),"grants":\#(grantsJSON)}"#
    }

    static let header = #"{"alg":"HS256","typ":"JWT","cty":"twilio-fpa;v=1"}"#

    static func expectCode(_ code: PreflightError.Code, _ token: String, now: Date = now) async throws {
        let verifier = try await verifier()
        do {
            _ = try await verifier.verify(token, now: now)
            Issue.record("token accepted, expected \(code.rawValue)")
        } catch {
            #expect(error.code == code, "\(error)")
            #expect(!error.message.isEmpty)
        }
    }

    @Test func mintedTokenVerifies() async throws {
        let token = try await Self.issuer().mint(identity: "alice", outgoingApplicationSID: Self.application, now: Self.now)
        let claims = try await Self.verifier().verify(token, now: Self.now.addingTimeInterval(60))
        #expect(claims.iss == Self.keySID)
        #expect(claims.sub == Self.account)
        #expect(claims.grants.identity == "alice")
        #expect(claims.grants.voice?.outgoing?.applicationSID == Self.application)
        #expect(claims.exp == Self.now.timeIntervalSince1970 + 3600)
        // The header is Twilio's shape.
        let headerPart = try #require(token.split(separator: ".").first)
        var text = String(headerPart)
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        let header = try JSONSerialization.jsonObject(with: try #require(Data(base64Encoded: text))) as? [String: String]
        #expect(header?["alg"] == "HS256")
        #expect(header?["typ"] == "JWT")
        #expect(header?["cty"] == "twilio-fpa;v=1")
    }

    @Test func mintedSignatureIsPlainHS256() async throws {
        // Recompute the signature with swift-crypto: the token is a standard RFC 7519 JWS.
        let token = try await Self.issuer().mint(identity: "alice", outgoingApplicationSID: Self.application, now: Self.now)
        let parts = token.split(separator: ".")
        try #require(parts.count == 3)
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data("\(parts[0]).\(parts[1])".utf8), using: SymmetricKey(data: Data(Self.secret.utf8)))
        #expect(String(parts[2]) == Self.base64URL(Data(mac)))
    }

    @Test func handMadeTokenVerifies() async throws {
        let claims = try await Self.verifier().verify(Self.handMade(header: Self.header, payload: Self.payload()), now: Self.now)
        #expect(claims.grants.identity == "alice")
    }

    @Test(arguments: [
        ("", PreflightError.Code.invalidAccessToken),
        ("abc", .invalidAccessToken),
        ("a.b", .invalidAccessToken),
        ("a.b.c.d", .invalidAccessToken),
        ("!!!.###.$$$", .invalidAccessToken),
        ("eyJ4IjoxfQ.eyJ4IjoxfQ.sig", .invalidAccessTokenHeader),  // {"x":1}: no alg
    ])
    func malformedTokens(token: String, code: PreflightError.Code) async throws {
        try await Self.expectCode(code, token)
    }

    @Test func algorithmNoneIsRefused() async throws {
        let unsigned = Self.base64URL(Data(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "." + Self.base64URL(Data(Self.payload().utf8)) + "."
        try await Self.expectCode(.invalidAccessTokenHeader, unsigned)
    }

    @Test func otherAlgorithmsAreRefused() async throws {
        try await Self.expectCode(.invalidAccessTokenHeader, Self.handMade(header: #"{"alg":"HS512","typ":"JWT"}"#, payload: Self.payload()))
    }

    @Test func wrongSecretIsASignatureError() async throws {
        let token = try await Self.issuer(secret: "not-the-secret-0123456789abcdefghijklmn").mint(identity: "alice", outgoingApplicationSID: Self.application, now: Self.now)
        try await Self.expectCode(.invalidAccessTokenSignature, token)
    }

    @Test func tamperedPayloadIsASignatureError() async throws {
        let token = try await Self.issuer().mint(identity: "alice", outgoingApplicationSID: Self.application, now: Self.now)
        let parts = token.split(separator: ".")
        let forged = Self.base64URL(Data(Self.payload(grants: #"{"identity":"mallory","voice":{"outgoing":{"application_sid":"APx"}}}"#).utf8))
        try await Self.expectCode(.invalidAccessTokenSignature, "\(parts[0]).\(forged).\(parts[2])")
    }

    @Test func unknownIssuerAndEmptySubject() async throws {
        try await Self.expectCode(.invalidAccessTokenIssuer, Self.handMade(header: Self.header, payload: Self.payload(iss: "SKunknown")))
        try await Self.expectCode(.invalidAccessTokenIssuer, Self.handMade(header: Self.header, payload: Self.payload(sub: "")))
    }

    @Test func expiryNotBeforeAndLifetime() async throws {
        // Expired an hour ago (beyond the 5 s skew), exactly at expiry, not yet valid, too long-lived, no exp.
        try await Self.expectCode(.accessTokenExpired, Self.handMade(header: Self.header, payload: Self.payload(exp: 1_779_996_400)))
        try await Self.expectCode(.accessTokenNotYetValid, Self.handMade(header: Self.header, payload: Self.payload(nbf: 1_780_000_600)))
        try await Self.expectCode(.accessTokenLifetimeTooLong, Self.handMade(header: Self.header, payload: Self.payload(exp: 1_780_000_000 + 86_401)))
        let noExpiry = #"{"jti":"x","iss":"\#(Self.keySID)","sub":"\#(Self.account)","grants":{"identity":"a","voice":{"outgoing":{"application_sid":"AP1"}}}}"#
        try await Self.expectCode(.accessTokenExpired, Self.handMade(header: Self.header, payload: noExpiry))
    }

    @Test func expiryEdges() async throws {
        let verifier = try await Self.verifier()
        let token = Self.handMade(header: Self.header, payload: Self.payload(exp: 1_780_000_100))
        // Accepted up to exp + 5 s of clock skew, refused after.
        _ = try await verifier.verify(token, now: Date(timeIntervalSince1970: 1_780_000_105))
        try await Self.expectCode(.accessTokenExpired, token, now: Date(timeIntervalSince1970: 1_780_000_106))
    }

    @Test func missingGrants() async throws {
        try await Self.expectCode(.invalidAccessTokenGrants, Self.handMade(header: Self.header, payload: Self.payload(grants: #"{"voice":{"outgoing":{"application_sid":"AP1"}}}"#)))
        try await Self.expectCode(.invalidAccessTokenGrants, Self.handMade(header: Self.header, payload: Self.payload(grants: #"{"identity":"alice"}"#)))
    }

    @Test func shortSecretsAreRefusedNotTrapped() async {
        do {
            _ = try await AccessTokenVerifier(configuration: .init(apiKeys: [Self.keySID: "short"]))
            Issue.record("a 5-byte secret was accepted")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("at least 32"))
        }
        do {
            _ = try await AccessTokenIssuer(apiKeySID: Self.keySID, apiKeySecret: "short", accountSID: Self.account)
            Issue.record("a 5-byte secret was accepted")
        } catch {
            #expect(error.code == .invalidArgument)
        }
    }
}

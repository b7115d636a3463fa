import Foundation
import PreflightCore
import PreflightEdge
import Testing

/// Validly signed tokens with hostile claims and headers: each is refused with its code, and none
/// traps (a time claim of ±1e300 once trapped in a conversion to whole seconds).
@Suite struct AccessTokenHostileTests {
    typealias T = AccessTokenTests

    /// A payload with raw JSON numbers for the time claims (any JSON number, not only integers).
    static func payload(exp: String = "1780003600", nbf: String? = nil, iat: String? = "1780000000", sub: String = T.account) -> String {
        let grants = #"{"identity":"alice","voice":{"outgoing":{"application_sid":"\#(T.application)"}}}"#
        var claims = #"{"jti":"x","iss":"\#(T.keySID)","sub":"\#(sub)","exp":\#(exp)"#
        if let nbf { claims += #","nbf":\#(nbf)"# }
        if let iat { claims += #","iat":\#(iat)"# }
        return claims + #","grants":\#(grants)}"#
    }

    @Test(arguments: [
        (payload(exp: "-1e300"), PreflightError.Code.accessTokenExpired),
        (payload(exp: "1e300"), .accessTokenExpired),
        (payload(exp: "-1"), .accessTokenExpired),
        (payload(exp: "253402300800"), .accessTokenExpired),  // past 9999-12-31
        (payload(nbf: "1e300"), .accessTokenNotYetValid),
        (payload(nbf: "-1e300"), .accessTokenNotYetValid),
        (payload(iat: "-1e300"), .accessTokenNotYetValid),
        (payload(iat: "1e300"), .accessTokenNotYetValid),
        // Issued ten years ahead with a one-day lifetime: the 24 h cap alone let it through.
        (payload(exp: "2095446400", iat: "2095360000"), .accessTokenNotYetValid),
    ])
    func timeClaimsAreRangeChecked(payload: String, code: PreflightError.Code) async throws {
        try await T.expectCode(code, T.handMade(header: T.header, payload: payload))
    }

    @Test func anIssueTimeWithinTheClockSkewIsAccepted() async throws {
        // iat 3 s ahead of the verifier's clock: within the 5 s skew.
        let token = T.handMade(header: T.header, payload: Self.payload(iat: "1780000003"))
        let claims = try await T.verifier().verify(token, now: T.now)
        #expect(claims.iat == 1_780_000_003)
    }

    @Test(arguments: [
        #"{"alg":"HS256","typ":"JWT","crit":["exp"]}"#,
        #"{"alg":"HS256","typ":"JWT","crit":[]}"#,
        #"{"alg":"HS256","crit":"b64"}"#,
    ])
    func criticalHeadersAreRefused(header: String) async throws {
        try await T.expectCode(.invalidAccessTokenHeader, T.handMade(header: header, payload: Self.payload()))
    }

    @Test func theSubjectMustBeTheKeysAccount() async throws {
        let verifier = try await AccessTokenVerifier(
            configuration: .init(apiKeys: [T.keySID: T.secret], accounts: [T.keySID: T.account]))
        _ = try await verifier.verify(T.handMade(header: T.header, payload: Self.payload()), now: T.now)
        do {
            _ = try await verifier.verify(T.handMade(header: T.header, payload: Self.payload(sub: "ACsomeoneelse")), now: T.now)
            Issue.record("a token for another account was accepted")
        } catch {
            #expect(error.code == .invalidAccessTokenIssuer)
            #expect(error.message.contains("ACsomeoneelse"))
        }
    }

    /// Without the secret nobody learns which account a key belongs to: a forged token naming the
    /// wrong account is refused for its signature, like one naming the right account.
    @Test func theAccountIsCheckedOnlyAfterTheSignature() async throws {
        let verifier = try await AccessTokenVerifier(
            configuration: .init(apiKeys: [T.keySID: T.secret], accounts: [T.keySID: T.account]))
        for sub in [T.account, "ACguess"] {
            let forged = T.handMade(header: T.header, payload: Self.payload(sub: sub), secret: "not-the-secret-0123456789abcdefghij")
            do {
                _ = try await verifier.verify(forged, now: T.now)
                Issue.record("a forged token was accepted")
            } catch {
                #expect(error.code == .invalidAccessTokenSignature, "\(sub): \(error)")
            }
        }
    }

    @Test func attackerTextInMessagesIsCut() async throws {
        let issuer = String(repeating: "A", count: 60_000) + "\n\u{1b}[2J"
        let payload = #"{"jti":"x","iss":"\#(issuer.replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\u{1b}", with: "\\u001b"))","sub":"AC1","exp":1780003600,"grants":{}}"#
        let verifier = try await T.verifier()
        do {
            _ = try await verifier.verify(T.handMade(header: T.header, payload: payload), now: T.now)
            Issue.record("accepted")
        } catch {
            #expect(error.code == .invalidAccessTokenIssuer)
            #expect(error.message.utf8.count < 300, "\(error.message.utf8.count) bytes")
            #expect(!error.message.contains("\n"))
            #expect(!error.message.contains("\u{1b}"))
        }
    }
}

import Foundation
import Hummingbird
import PreflightCore

/// Opens a route group to an API key (HTTP Basic, ``APIKeyAuthorization``): the request's context
/// gets the key's account; anything else is 401 with the Basic challenge, before any other work.
struct APIKeyAuthentication: RouterMiddleware {
    typealias Context = EdgeRequestContext
    let apiKeys: [String: String]
    let accounts: [String: String]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let account = APIKeyAuthorization.account(request.headers[.authorization], apiKeys: apiKeys, accounts: accounts) else {
            throw EdgeAPIError.apiKeyRequired
        }
        var context = context
        context.account = account
        return try await next(request, context)
    }
}

/// Opens a route group to an access token (`Authorization: Bearer`, any grant): the request's
/// context gets its claims; anything else is 401 with the token's code. A value over
/// ``maximumHeaderLength`` is refused unread.
struct AccessTokenAuthentication: RouterMiddleware {
    typealias Context = EdgeRequestContext
    /// The longest `Authorization` value read.
    static let maximumHeaderLength = 8192
    let verifier: AccessTokenVerifier

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.claims = try await Self.claims(request.headers[.authorization], verifier: verifier)
        return try await next(request, context)
    }

    /// The claims of a `Bearer` value.
    /// - Throws: the token's ``PreflightError`` (201xx).
    static func claims(_ authorization: String?, verifier: AccessTokenVerifier) async throws(PreflightError) -> AccessTokenClaims {
        guard let authorization, authorization.utf8.count <= maximumHeaderLength,
            authorization.count > 7, authorization.prefix(7).lowercased() == "bearer "
        else {
            throw PreflightError(code: .invalidAccessToken, message: "send the access token as Authorization: Bearer <token>")
        }
        return try await verifier.verify(authorization.dropFirst(7).trimmingCharacters(in: .whitespaces), requireOutgoingGrant: false)
    }
}

import Foundation
import Hummingbird
import HTTPTypes
import NIOCore
import PreflightCore

/// A refusal of the edge's HTTP API: a ``PreflightError`` with the HTTP status its code maps to
/// (``status(for:)``, the one place that mapping lives), written as `{"code": …, "message": …}`.
/// A route throws a `PreflightError`; ``EdgeErrorMiddleware`` makes it this.
struct EdgeAPIError: HTTPResponseError {
    /// How a 401 asks for credentials.
    enum Challenge: Sendable {
        /// An access token (`/v1/init`, uploads).
        case bearer
        /// An API key's sid and secret (the REST API, pages, `/status`, `/metrics`).
        case basic
    }

    let error: PreflightError
    let status: HTTPResponse.Status
    let challenge: Challenge

    /// The error with the status its code maps to; a 401 challenges for `challenge`.
    init(_ error: PreflightError, challenge: Challenge = .bearer) {
        self.error = error
        status = Self.status(for: error)
        self.challenge = challenge
    }

    /// A missing or wrong API key: 401 with the Basic challenge.
    static var apiKeyRequired: EdgeAPIError {
        EdgeAPIError(
            PreflightError(code: .invalidAccessToken, message: "send an API key sid and secret by HTTP Basic auth"), challenge: .basic)
    }

    /// The HTTP status of each code the API answers with.
    static func status(for error: PreflightError) -> HTTPResponse.Status {
        switch error.code {
        case .reportRejected where error.underlying is BodyTooLarge: .contentTooLarge
        case .reportRejected, .invalidQuery: .badRequest
        case .reportConflict: .conflict
        case .reportNotFound: .notFound
        // Larger than a whole window's allowance: no wait would let it in.
        case .storeQuotaExceeded where (error.underlying as? StoreQuotaRefusal)?.retryAfter.isFinite == false: .contentTooLarge
        case .reportRateLimited, .storeQuotaExceeded: .tooManyRequests
        case .storeUnavailable, .edgeAtCapacity: .serviceUnavailable
        case let code where (20100...20199).contains(code.rawValue): .unauthorized
        default: .internalServerError
        }
    }

    /// The body of every refusal.
    private struct Body: Encodable {
        var code: Int
        var message: String
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = (try? JSONEncoder().encode(Body(code: error.code.rawValue, message: error.message))) ?? Data("{}".utf8)
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store"]
        if status == .unauthorized {
            headers[.wwwAuthenticate] = challenge == .basic ? APIKeyAuthorization.challenge : #"Bearer realm="preflight-edge""#
        }
        if let seconds = retryAfter { headers[.retryAfter] = String(seconds) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Whole seconds until a refused request may succeed: a quota's, or a rate limit's (1 s).
    var retryAfter: Int? {
        if let refusal = error.underlying as? StoreQuotaRefusal {
            return refusal.retryAfter.isFinite ? max(1, Int(min(refusal.retryAfter, 1e9).rounded(.up))) : nil
        }
        return error.code == .reportRateLimited ? 1 : nil
    }

    /// The cause of a 413: the body was over the cap or cut off.
    struct BodyTooLarge: Error {}
}

/// Turns the ``PreflightError`` a route throws into its ``EdgeAPIError``: the status comes from
/// one mapping, whatever the route.
struct EdgeErrorMiddleware: RouterMiddleware {
    typealias Context = EdgeRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as PreflightError {
            throw EdgeAPIError(error)
        }
    }
}

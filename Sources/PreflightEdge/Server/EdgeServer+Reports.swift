import Foundation
import Hummingbird
import NIOCore
import PreflightCore
import Synchronization

extension EdgeServer {
    /// `POST /v1/reports?kind=…` with `Authorization: Bearer <access token>`: stores the report
    /// in the body for the token's account and identity (docs/protocol.md).
    func uploadResponse(_ request: Request) async -> Response {
        var request = request
        let claims: AccessTokenClaims
        switch await bearerClaims(request.headers[.authorization], for: "report") {
        case .success(let verified): claims = verified
        case .failure(let error): return Self.refusal(.unauthorized, error)
        }
        guard allowAPI(account: claims.sub) else { return Self.rateLimited() }
        guard let kindText = request.uri.queryParameters["kind"], let kind = ReportKind(rawValue: String(kindText)) else {
            return Self.refusal(.badRequest, PreflightError(
                code: .reportRejected,
                message: "report: kind must be one of \(ReportKind.allCases.map(\.rawValue).joined(separator: ", "))"))
        }
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: ReportUpload.maximumLength)
        } catch {
            return Self.refusal(.contentTooLarge, PreflightError(
                code: .reportRejected, message: "report: the body exceeds \(ReportUpload.maximumLength) bytes or was cut off"))
        }
        let upload: ReportUpload
        do {
            upload = try ReportUpload(kind: kind, body: body.readableBytesView)
        } catch {
            return Self.refusal(.badRequest, error)
        }
        // A call sid is the report's own only when this edge routed that call for this identity:
        // no one can take (and so block) another identity's sid.
        let identity = claims.grants.identity ?? ""
        var summary = upload.summary
        if let sid = summary.sid, !callEvents.isParty(callSid: sid, account: claims.sub, identity: identity) {
            summary.sid = nil
        }
        let report = StoredReport(
            sid: summary.sid ?? Self.makeReportSid(), kind: kind, account: claims.sub,
            identity: identity, edge: configuration.edgeName, receivedAt: ReportStore.now(),
            summary: summary, body: upload.body)
        do {
            try await metrics.timeStore("insert") { () async throws(PreflightError) in try await store.insert(report) }
        } catch {
            return Self.refusal(error.code == .reportConflict ? .conflict : .serviceUnavailable, error)
        }
        metrics.record(report)
        struct Receipt: Encodable {
            var sid: String
            var kind: String
            var edge: String
            var receivedAt: Int64
        }
        return Self.encoded(Receipt(sid: report.sid, kind: kind.rawValue, edge: report.edge, receivedAt: report.receivedAt), status: .created)
    }

    /// The account of an API key given by HTTP Basic auth, or `nil`.
    func apiAccount(_ authorization: String?) -> String? {
        guard StatusAuthorization.isAuthorized(authorization, apiKeys: configuration.apiKeys),
            let (sid, _) = StatusAuthorization.credentials(authorization)
        else { return nil }
        return configuration.accounts[sid]
    }

    /// Takes one of the account's API tokens.
    func allowAPI(account: String) -> Bool {
        let now = apiEpoch.duration(to: apiClock.now)
        let seconds = Double(now.components.seconds) + Double(now.components.attoseconds) / 1e18
        return apiLimiter.withLock { $0.allow(account, at: seconds) }
    }

    /// `RP` and 32 random hex digits.
    static func makeReportSid() -> String {
        var generator = SystemRandomNumberGenerator()
        return "RP" + (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    static func rateLimited() -> Response {
        refusal(.tooManyRequests, PreflightError(code: .reportRateLimited, message: "too many requests for this account; slow down"))
    }

    /// 401 with the Basic challenge.
    static func basicChallenge() -> Response {
        Response(
            status: .unauthorized,
            headers: [.wwwAuthenticate: StatusAuthorization.challenge, .contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: #"{"code":20101,"message":"send an API key sid and secret by HTTP Basic auth"}"#)))
    }

    /// `value` as sorted-key JSON.
    static func encoded(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else {
            return refusal(.internalServerError, PreflightError(code: .malformed, message: "the answer could not be encoded"))
        }
        return Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

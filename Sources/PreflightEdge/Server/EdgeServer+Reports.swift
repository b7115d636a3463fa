import Foundation
import Hummingbird
import NIOCore
import PreflightCore
import Synchronization

extension EdgeServer {
    /// `POST /v1/reports?kind=…` with `Authorization: Bearer <access token>`: stores the report
    /// in the body for the token's account and identity (docs/protocol.md). What it spends, in
    /// order, so that a refusal costs only the caller: an unknown `kind` is refused before
    /// anything is spent; an upload whose body was read (at most 1 MiB) spends its identity's
    /// upload bucket, accepted or not; one that validates spends its account's upload bucket and
    /// its owner's store quota. Nothing here touches the account's API bucket, which is its API keys' alone.
    func uploadResponse(_ request: Request, context: EdgeRequestContext) async throws(PreflightError) -> Response {
        guard let owner = context.owner else {
            throw PreflightError(code: .invalidAccessToken, message: "report: send the access token as Authorization: Bearer <token>")
        }
        guard let kindText = request.uri.queryParameters["kind"], let kind = ReportKind(rawValue: String(kindText)) else {
            throw PreflightError(
                code: .reportRejected,
                message: "report: kind must be one of \(ReportKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        // The body is read (bounded) before any refusal, so that the client reads the answer
        // instead of a connection reset under its unread upload.
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: ReportUpload.maximumLength)
        } catch {
            throw PreflightError(
                code: .reportRejected, message: "report: the body exceeds \(ReportUpload.maximumLength) bytes or was cut off",
                underlying: EdgeAPIError.BodyTooLarge())
        }
        try rateLimiter.spend(.identityUpload, key: RequestRateLimiter.key(owner))
        let upload = try ReportUpload(kind: kind, body: body.readableBytesView)
        try rateLimiter.spend(.accountUpload, key: owner.account)
        // A call sid is the report's own only when this edge routed that call for this identity:
        // no one can take (and so block) another identity's sid.
        var summary = upload.summary
        if let sid = summary.sid, !callEvents.isParty(callSid: sid, account: owner.account, identity: owner.identity) {
            summary.sid = nil
        }
        let report = StoredReport(
            sid: summary.sid ?? Self.makeReportSid(), kind: kind, account: owner.account,
            identity: owner.identity, edge: configuration.edgeName, receivedAt: ReportStore.now(),
            summary: summary, body: upload.body)
        try await metrics.timeStore("insert") { () async throws(PreflightError) in try await store.insert(report) }
        metrics.record(report)
        struct Receipt: Encodable {
            var sid: String
            var kind: String
            var edge: String
            var receivedAt: Int64
        }
        return try Self.encoded(Receipt(sid: report.sid, kind: kind.rawValue, edge: report.edge, receivedAt: report.receivedAt), status: .created)
    }

    /// `RP` and 32 random hex digits.
    static func makeReportSid() -> String {
        var generator = SystemRandomNumberGenerator()
        return "RP" + (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// `value` as sorted-key JSON.
    /// - Throws: 70002 when it cannot be encoded (a non-finite number), answered with 500.
    static func encoded(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws(PreflightError) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else {
            throw PreflightError(code: .malformed, message: "the answer could not be encoded")
        }
        return Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

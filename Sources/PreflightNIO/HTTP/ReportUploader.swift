import Foundation
import PreflightCore

/// Uploads a finished test's report to the edge it ran against (`POST /v1/reports?kind=…`,
/// docs/protocol.md), with the test's access token.
public enum ReportUploader {
    /// What the edge answered: the sid it stored the report under.
    public struct Receipt: Sendable, Hashable, Decodable {
        /// The report's sid.
        public var sid: String
        /// The edge that stored it.
        public var edge: String
    }

    /// Uploads `report`.
    /// - Parameters:
    ///   - edge: the signaling URL the test used, or the edge's HTTP base.
    ///   - timeout: for the whole exchange.
    /// - Throws: ``PreflightError``: the edge's own code when it refused the report (a token's
    ///   201xx, 70702, 70703, 70706), 70704 when it could not be reached or answered something else.
    public static func upload(
        _ report: Data, kind: ReportKind, edge: String, accessToken: String, trustedCertificatesFile: String? = nil,
        timeout: Duration = .seconds(5)
    ) async throws(PreflightError) -> Receipt {
        let reply = try await EdgeHTTPClient.send(
            edge: edge, method: "POST", path: "/v1/reports?kind=\(kind.rawValue)", authorization: "Bearer \(accessToken)",
            body: Array(report), trustedCertificatesFile: trustedCertificatesFile, timeout: timeout, maximumLength: 64 * 1024,
            failure: .reportUploadFailed)
        if reply.status == 201, let receipt = try? JSONDecoder().decode(Receipt.self, from: Data(reply.body)) {
            return receipt
        }
        throw refusal(reply, what: "report upload")
    }

    /// The coded error of a refusal (`{"code", "message"}`), or 70704 for an answer that is not one.
    static func refusal(_ reply: EdgeHTTPClient.Reply, what: String) -> PreflightError {
        struct Body: Decodable {
            var code: Int
            var message: String
        }
        if let body = try? JSONDecoder().decode(Body.self, from: Data(reply.body)) {
            return PreflightError(
                code: PreflightError.Code(body.code),
                message: "\(what): the edge refused it (HTTP \(reply.status)): \(UntrustedText.quoted(String(body.message.prefix(300))))")
        }
        return PreflightError(code: .reportUploadFailed, message: "\(what): the edge answered HTTP \(reply.status)")
    }
}

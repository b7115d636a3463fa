import Foundation
import PreflightCore
import PreflightEdge
import PreflightNIO

/// The edge's REST API from a test, through the SDK's own HTTP client.
enum ReportAPI {
    /// `GET path` with the local edge's API key (or the given one); status and body.
    static func get(
        _ edge: LocalEdge, _ path: String, key: String = LocalEdge.apiKeySID, secret: String? = nil
    ) async throws -> (status: UInt, body: [UInt8]) {
        let secret = secret ?? edge.server.configuration.apiKeys[key] ?? ""
        let basic = Data("\(key):\(secret)".utf8).base64EncodedString()
        let reply = try await EdgeHTTPClient.send(
            edge: edge.signalingURL, method: "GET", path: path, authorization: "Basic \(basic)", timeout: .seconds(10),
            maximumLength: 8 << 20, failure: .malformed)
        return (reply.status, reply.body)
    }

    /// `path`'s JSON decoded as `T`, requiring a 200.
    static func decode<T: Decodable>(_ type: T.Type, _ edge: LocalEdge, _ path: String) async throws -> T {
        let (status, body) = try await get(edge, path)
        guard status == 200 else { throw PreflightError(code: .malformed, message: "GET \(path): HTTP \(status) \(String(decoding: body, as: UTF8.self))") }
        return try JSONDecoder().decode(T.self, from: Data(body))
    }

    /// `GET /v1/reports`'s body.
    struct Page: Decodable {
        var reports: [ReportListItem]
        var nextPageToken: String?
    }

    /// `{"code", "message"}`.
    struct Refusal: Decodable {
        var code: Int
        var message: String
    }

    /// The `report` member of `GET /v1/reports/{sid}`, as its JSON bytes.
    static func storedReport(_ edge: LocalEdge, sid: String) async throws -> Data {
        let (status, body) = try await get(edge, "/v1/reports/\(sid)")
        guard status == 200, let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let report = object["report"]
        else { throw PreflightError(code: .malformed, message: "GET /v1/reports/\(sid): HTTP \(status)") }
        return try JSONSerialization.data(withJSONObject: report)
    }
}

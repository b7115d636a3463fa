import Foundation
import Hummingbird
import NIOCore
import Synchronization

extension EdgeServer {
    /// `GET /healthz` (public: up or not, nothing more) and `GET /status` (the counters, for an
    /// API key by HTTP Basic auth).
    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("healthz") { _, _ -> Response in
            Self.json(#"{"status":"ok"}"#)
        }
        router.get("status") { [self] request, _ -> Response in
            guard StatusAuthorization.isAuthorized(request.headers[.authorization], apiKeys: configuration.apiKeys) else {
                return Response(
                    status: .unauthorized,
                    headers: [.wwwAuthenticate: StatusAuthorization.challenge, .contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: #"{"status":"unauthorized"}"#)))
            }
            return Self.json(statusJSON())
        }
        return router
    }

    /// The counters `GET /status` answers with: sessions, media and the HTTP listener's limits.
    func statusJSON() -> String {
        let counters = media.counters
        let http = httpLimiter.counters
        return """
            {"status":"ok","edge":"\(Self.escaped(configuration.edgeName))","sessions":\(sessionCount),\
            "mediaSessions":\(media.sessionCount),"packetsEchoed":\(counters.packetsEchoed),\
            "droppedMalformed":\(counters.droppedMalformed),"droppedUnverified":\(counters.droppedUnverified),\
            "droppedRateLimited":\(counters.droppedRateLimited),"droppedOverBudget":\(counters.droppedOverBudget),\
            "droppedOverRecordingBudget":\(counters.droppedOverRecordingBudget),"httpConnections":\(http.open),\
            "httpRefused":\(http.refused),"httpHeaderTimeouts":\(http.headerTimeouts),"httpIdleTimeouts":\(http.idleTimeouts)}
            """
    }

    private static func json(_ body: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// `text` as the inside of a JSON string.
    private static func escaped(_ text: String) -> String {
        guard let data = try? JSONEncoder().encode(text), let quoted = String(data: data, encoding: .utf8) else { return "" }
        return String(quoted.dropFirst().dropLast())
    }
}

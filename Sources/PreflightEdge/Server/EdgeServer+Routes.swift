import Foundation
import Hummingbird
import NIOCore
import PreflightCore
import Synchronization

extension EdgeServer {
    /// `GET /healthz` (public: up or not, nothing more), `GET /status` (the counters, for an
    /// API key by HTTP Basic auth), `GET /v1/init` (where to connect, for an access token),
    /// `POST /v1/reports` (a client's report, for an access token), and for an API key the REST
    /// API (docs/openapi.yaml): `GET /v1/reports`, `/v1/reports/{sid}`, `/v1/aggregates`,
    /// `/v1/calls/{sid}/events`, the pages `/reports/{sid}` and `/dashboard`, and `GET /metrics`.
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
        router.get("v1/init") { [self] request, _ -> Response in
            await initResponse(authorization: request.headers[.authorization])
        }
        router.get("v1/calls/:sid/events") { [self] request, context -> Response in
            await callEventsResponse(request, callSid: context.parameters.get("sid") ?? "")
        }
        router.post("v1/reports") { [self] request, _ -> Response in
            await uploadResponse(request)
        }
        router.get("v1/reports") { [self] request, _ -> Response in
            await listResponse(request)
        }
        router.get("v1/reports/:sid") { [self] request, context -> Response in
            await reportResponse(request, sid: context.parameters.get("sid") ?? "")
        }
        router.get("v1/aggregates") { [self] request, _ -> Response in
            await aggregatesResponse(request)
        }
        router.get("reports/:sid") { [self] request, context -> Response in
            await reportPage(request, sid: context.parameters.get("sid") ?? "")
        }
        router.get("dashboard") { [self] request, _ -> Response in
            await dashboardPage(request)
        }
        router.get("metrics") { [self] request, _ -> Response in
            metricsResponse(request)
        }
        return router
    }

    /// `{"callSid": …, "events": [{"party", "group", "name", "timestamp", "payload", "receivedAt"}…], "dropped": n}`.
    static func eventsJSON(callSid: String, entries: [StoredCallEvent], dropped: Int) -> String {
        struct Body: Encodable {
            struct Event: Encodable {
                var party: String
                var group: String
                var name: String
                var timestamp: Int64
                var payload: [String: String]
                var receivedAt: Int64
            }
            var callSid: String
            var events: [Event]
            var dropped: Int
        }
        let body = Body(
            callSid: callSid,
            events: entries.map {
                .init(party: $0.party, group: $0.event.group, name: $0.event.name, timestamp: $0.event.timestamp,
                      payload: $0.event.payload, receivedAt: $0.receivedAt)
            },
            dropped: dropped)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(body) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
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
            "droppedOverRecordingBudget":\(counters.droppedOverRecordingBudget),\
            "droppedWrongPayloadType":\(counters.droppedWrongPayloadType),"httpConnections":\(http.open),\
            "httpRefused":\(http.refused),"httpPreempted":\(http.preempted),"httpHeaderTimeouts":\(http.headerTimeouts),"httpIdleTimeouts":\(http.idleTimeouts)}
            """
    }

    static func json(_ body: String) -> Response {
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

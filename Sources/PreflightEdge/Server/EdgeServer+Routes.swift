import Foundation
import Hummingbird
import NIOCore
import PreflightCore
import Synchronization

extension EdgeServer {
    /// The HTTP API (docs/openapi.yaml), in three groups, each behind its own middleware:
    /// - public: `GET /healthz` (up or not, nothing more);
    /// - an access token (``AccessTokenAuthentication``): `GET /v1/init` (where to connect; the
    ///   identity's init bucket) and `POST /v1/reports` (a client's report; the identity's and the
    ///   account's upload buckets, spent by the route once the request is worth it);
    /// - an API key (``APIKeyAuthentication``, the account's API bucket): `GET /status`,
    ///   `/metrics`, the REST API (`/v1/reports`, `/v1/reports/{sid}`, `/v1/aggregates`,
    ///   `/v1/calls/{sid}/events`) and the pages `/reports/{sid}` and `/dashboard`.
    ///
    /// A route throws a ``PreflightError``; ``EdgeErrorMiddleware`` answers it with the status its
    /// code maps to (``EdgeAPIError/status(for:)``).
    func makeRouter() -> Router<EdgeRequestContext> {
        let router = Router(context: EdgeRequestContext.self)
        router.add(middleware: EdgeErrorMiddleware())
        router.get("healthz") { _, _ -> Response in
            Self.json(#"{"status":"ok"}"#)
        }

        let clients = router.group().add(middleware: AccessTokenAuthentication(verifier: verifier))
        clients.group().add(middleware: RateLimitMiddleware(limiter: rateLimiter, kind: .identityInit))
            .get("v1/init") { [self] _, context -> Response in try initResponse(context) }
        clients.post("v1/reports") { [self] request, context -> Response in try await uploadResponse(request, context: context) }

        let administration = router.group()
            .add(middleware: APIKeyAuthentication(apiKeys: configuration.apiKeys, accounts: configuration.accounts))
            .add(middleware: RateLimitMiddleware(limiter: rateLimiter, kind: .apiRequest))
        administration.get("status") { [self] _, _ -> Response in Self.json(statusJSON()) }
        administration.get("metrics") { [self] _, _ -> Response in try metricsResponse() }
        administration.get("v1/reports") { [self] request, context -> Response in try await listResponse(request, context: context) }
        administration.get("v1/reports/:sid") { [self] _, context -> Response in try await reportResponse(context) }
        administration.get("v1/aggregates") { [self] request, context -> Response in try await aggregatesResponse(request, context: context) }
        administration.get("v1/calls/:sid/events") { [self] _, context -> Response in try await callEventsResponse(context) }
        administration.get("reports/:sid") { [self] _, context -> Response in try await reportPage(context) }
        administration.get("dashboard") { [self] request, context -> Response in try await dashboardPage(request, context: context) }
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
                /// The edge the party posted it to: a call across edges has both.
                var edge: String
            }
            var callSid: String
            var events: [Event]
            var dropped: Int
        }
        let body = Body(
            callSid: callSid,
            events: entries.map {
                .init(party: $0.party, group: $0.event.group, name: $0.event.name, timestamp: $0.event.timestamp,
                      payload: $0.event.payload, receivedAt: $0.receivedAt, edge: $0.edge)
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
        let events = storeWriter.droppedEvents
        let cluster = cluster.map { cluster in
            let counts = cluster.counts
            return """
                "cluster":{"remoteRegistrations":\(cluster.remoteRegistrationCount),"sent":\(counts.sent),"dropped":\(counts.dropped),\
                "received":\(counts.received),"refused":\(counts.refused),"expired":\(counts.expired),"malformed":\(counts.malformed),\
                "trunkPacketsSent":\(counters.trunkPacketsSent),"trunkPacketsReceived":\(counters.trunkPacketsReceived),\
                "trunkHellosSent":\(counters.trunkHellosSent),"trunkControlReceived":\(counters.trunkControlReceived)},
                """
        }
        return """
            {"status":"ok","edge":"\(Self.escaped(configuration.edgeName))","sessions":\(sessionCount),\(cluster ?? "")\
            "mediaSessions":\(media.sessionCount),"packetsEchoed":\(counters.packetsEchoed),\
            "droppedMalformed":\(counters.droppedMalformed),"droppedUnverified":\(counters.droppedUnverified),\
            "droppedRateLimited":\(counters.droppedRateLimited),"droppedOverBudget":\(counters.droppedOverBudget),\
            "droppedOverRecordingBudget":\(counters.droppedOverRecordingBudget),\
            "droppedWrongPayloadType":\(counters.droppedWrongPayloadType),"droppedOverProbeRate":\(counters.droppedOverProbeRate),\
            "probePacketsSent":\(counters.probePacketsSent),"probePacketsWithheld":\(counters.probePacketsWithheld),\
            "consentRequestsSent":\(counters.consentRequestsSent),"consentRequestsWithheld":\(counters.consentRequestsWithheld),\
            "consentAnswers":\(counters.consentAnswers),"eventsDroppedQueueFull":\(events.dropped),\
            "eventsDroppedOverQuota":\(events.overQuota),"eventsFailed":\(events.failed),\
            "storedBytes":\(store.storedBytes),"rowsEvicted":\(store.rowsEvicted),"httpConnections":\(http.open),\
            "httpRefused":\(http.refused),"httpPreempted":\(http.preempted),"httpHeaderTimeouts":\(http.headerTimeouts),"httpHeadsTooLarge":\(http.headsTooLarge),"httpIdleTimeouts":\(http.idleTimeouts)}
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

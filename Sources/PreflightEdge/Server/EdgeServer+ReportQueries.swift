import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore
import PreflightCore
import Prometheus

extension EdgeServer {
    /// `GET /v1/reports`: a page of the account's reports, newest first, filtered (docs/openapi.yaml).
    func listResponse(_ request: Request, context: EdgeRequestContext) async throws(PreflightError) -> Response {
        let account = try Self.account(context)
        let query = request.uri.queryParameters
        let filter = try Self.filter(query)
        let pageSize = try Self.integer(query, "pageSize", 1...ReportStore.maximumPageSize) ?? 50
        let token = query["pageToken"].map(String.init)
        let page = try await metrics.timeStore("list") { () async throws(PreflightError) in
            try await store.reports(account: account, filter: filter, pageSize: pageSize, pageToken: token)
        }
        return try Self.encoded(ReportListBody(reports: page.reports.map(ReportListItem.init), nextPageToken: page.nextPageToken))
    }

    /// `GET /v1/reports/{sid}`: one report with its JSON.
    func reportResponse(_ context: EdgeRequestContext) async throws(PreflightError) -> Response {
        let account = try Self.account(context)
        let sid = context.parameters.get("sid") ?? ""
        guard ReportUpload.isValidSid(sid),
            let report = try await metrics.timeStore("get", { () async throws(PreflightError) in
                try await store.report(account: account, sid: sid)
            })
        else {
            throw PreflightError(code: .reportNotFound, message: "no report \(UntrustedText.quoted(sid))")
        }
        return Self.json(Self.detailJSON(report))
    }

    /// `GET /v1/aggregates`: per edge and UTC day.
    func aggregatesResponse(_ request: Request, context: EdgeRequestContext) async throws(PreflightError) -> Response {
        let account = try Self.account(context)
        let filter = try Self.filter(request.uri.queryParameters)
        let rows = try await metrics.timeStore("aggregate") { () async throws(PreflightError) in
            try await store.aggregates(account: account, filter: filter)
        }
        struct Body: Encodable { var aggregates: [ReportAggregate] }
        return try Self.encoded(Body(aggregates: rows))
    }

    /// `GET /v1/calls/{sid}/events`: a call's Insights events from the store (any edge's).
    func callEventsResponse(_ context: EdgeRequestContext) async throws(PreflightError) -> Response {
        let account = try Self.account(context)
        let callSid = context.parameters.get("sid") ?? ""
        let stored = try await metrics.timeStore("events") { () async throws(PreflightError) in
            try await store.events(account: account, callSid: callSid)
        }
        let dropped = callEvents.dropped(callSid: callSid, account: account)
        guard !stored.isEmpty || dropped != nil else {
            throw PreflightError(code: .reportNotFound, message: "no call \(UntrustedText.quoted(callSid))")
        }
        return Self.json(Self.eventsJSON(callSid: callSid, entries: stored, dropped: dropped ?? 0))
    }

    /// `GET /metrics`: the Prometheus registry.
    func metricsResponse() throws(PreflightError) -> Response {
        guard let registry = configuration.prometheusRegistry else {
            throw PreflightError(code: .reportNotFound, message: "this edge exports no Prometheus metrics")
        }
        syncMetrics()
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
    }

    /// The account an API key authenticated (``APIKeyAuthentication`` ran before the route).
    static func account(_ context: EdgeRequestContext) throws(PreflightError) -> String {
        guard let account = context.account else {
            throw PreflightError(code: .invalidAccessToken, message: "send an API key sid and secret by HTTP Basic auth")
        }
        return account
    }

    /// A report's fields and, under `report`, its JSON as uploaded (valid JSON: checked at upload).
    static func detailJSON(_ report: StoredReport) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(ReportListItem(report)) else { return "{}" }
        let fields = String(decoding: data, as: UTF8.self)
        return String(fields.dropLast()) + #","report":"# + report.body + "}"
    }

    /// The filter of a query string.
    /// - Throws: 70707 for a value out of range or not of its type.
    static func filter(_ query: FlatDictionary<Substring, Substring>) throws(PreflightError) -> ReportFilter {
        var filter = ReportFilter()
        filter.from = try time(query, "from")
        filter.to = try time(query, "to")
        filter.identity = try text(query, "identity")
        filter.edge = try text(query, "edge")
        if let kind = query["kind"] {
            guard let value = ReportKind(rawValue: String(kind)) else { throw invalid("kind", kind) }
            filter.kind = value
        }
        filter.callQuality = try integer(query, "callQuality", 0...4)
        if let turn = query["isTurnRequired"] {
            guard turn == "true" || turn == "false" else { throw invalid("isTurnRequired", turn) }
            filter.isTurnRequired = turn == "true"
        }
        filter.errorCode = try integer(query, "errorCode", 0...999_999)
        return filter
    }

    /// A time: milliseconds since the epoch, or an ISO 8601 date-time (`2026-11-26T10:00:00Z`).
    static func time(_ query: FlatDictionary<Substring, Substring>, _ name: String) throws(PreflightError) -> Int64? {
        guard let text = query[Substring(name)] else { return nil }
        if let value = Int64(text), value >= 0 { return value }
        guard text.count <= 40, let date = try? Date(String(text), strategy: .iso8601) else { throw invalid(name, text) }
        return Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    static func integer(_ query: FlatDictionary<Substring, Substring>, _ name: String, _ range: ClosedRange<Int>) throws(PreflightError) -> Int? {
        guard let text = query[Substring(name)] else { return nil }
        guard let value = Int(text), range.contains(value) else { throw invalid(name, text) }
        return value
    }

    static func text(_ query: FlatDictionary<Substring, Substring>, _ name: String) throws(PreflightError) -> String? {
        guard let text = query[Substring(name)] else { return nil }
        guard !text.isEmpty, text.utf8.count <= 256 else { throw invalid(name, text) }
        return String(text)
    }

    static func invalid(_ name: String, _ value: Substring) -> PreflightError {
        PreflightError(code: .invalidQuery, message: "\(name): \(UntrustedText.quoted(String(value.prefix(64)))) is not a valid value")
    }
}

/// `GET /v1/reports`'s body.
struct ReportListBody: Encodable {
    var reports: [ReportListItem]
    var nextPageToken: String?
}

extension ReportListItem {
    /// The listing item of a stored report.
    init(_ report: StoredReport) {
        let summary = report.summary
        self.init(
            sid: report.sid, kind: report.kind, identity: report.identity, edge: report.edge, receivedAt: report.receivedAt,
            requestedEdge: summary.edge, selectedEdge: summary.selectedEdge, callQuality: summary.callQuality,
            isTurnRequired: summary.isTurnRequired, mos: summary.mos, rtt: summary.rtt, jitter: summary.jitter, errorCode: summary.errorCode)
    }
}

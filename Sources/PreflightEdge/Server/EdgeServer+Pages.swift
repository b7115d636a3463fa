import Foundation
import Hummingbird
import HummingbirdCore
import HTTPTypes
import NIOCore
import PreflightCore
import PreflightHTML

extension HTTPField.Name {
    /// `X-Content-Type-Options` (the browser must not guess another type than the one sent).
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
}

extension EdgeServer {
    /// The headers of every page: HTML that may load nothing (no script, no outside asset, no
    /// frame), so a hostile value that escaped escaping still could not run.
    static let pageHeaders: HTTPFields = [
        .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
        .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
        .xContentTypeOptions: "nosniff",
    ]

    static func page(_ html: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: pageHeaders, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// `GET /reports/{sid}`: one report's page, for an API key of its account.
    func reportPage(_ context: EdgeRequestContext) async throws(PreflightError) -> Response {
        let account = try Self.account(context)
        let sid = context.parameters.get("sid") ?? ""
        guard ReportUpload.isValidSid(sid), let report = try await store.report(account: account, sid: sid) else {
            return Self.page(GenericReportHTML.render(title: "No such report", fields: [("sid", String(sid.prefix(64)))], json: "{}"), status: .notFound)
        }
        if report.kind == .preflightTest, let decoded = try? PreflightReport(jsonData: Data(report.body.utf8)) {
            return Self.page(ReportHTML.render(decoded))
        }
        let summary = report.summary
        var fields: [(String, String)] = [
            ("sid", report.sid), ("kind", report.kind.rawValue), ("identity", report.identity), ("stored by", report.edge),
            ("received", "\(report.receivedAt) ms since the epoch"),
        ]
        if let value = summary.mos { fields.append(("MOS", String(value))) }
        if let value = summary.rtt { fields.append(("RTT (ms)", String(value))) }
        if let value = summary.isTurnRequired { fields.append(("TURN needed", value ? "yes" : "no")) }
        if let value = summary.errorCode { fields.append(("error", String(value))) }
        return Self.page(GenericReportHTML.render(title: "\(report.kind.rawValue) \(report.sid)", fields: fields, json: report.body))
    }

    /// `GET /dashboard`: recent reports and aggregates of the key's account, filtered by the query.
    func dashboardPage(_ request: Request, context: EdgeRequestContext) async throws(PreflightError) -> Response {
        let account = try Self.account(context)
        let query = request.uri.queryParameters
        var shown: [String: String] = [:]
        for name in DashboardHTML.filterNames {
            if let value = query[Substring(name)], !value.isEmpty { shown[name] = String(value.prefix(256)) }
        }
        var filter = ReportFilter()
        var refusal: String?
        do {
            // Empty fields of the form are no filter.
            var nonEmpty = FlatDictionary<Substring, Substring>()
            for (key, value) in query where !value.isEmpty { nonEmpty.append(key: key, value: value) }
            filter = try Self.filter(nonEmpty)
        } catch {
            refusal = error.message
        }
        let page = refusal == nil ? try await store.reports(account: account, filter: filter, pageSize: 100) : ReportPage(reports: [], nextPageToken: nil)
        let aggregates = refusal == nil ? try await store.aggregates(account: account, filter: filter) : []
        return Self.page(
            DashboardHTML.render(
                edgeName: configuration.edgeName, rows: page.reports.map(ReportListItem.init), aggregates: aggregates, filters: shown,
                error: refusal),
            status: refusal == nil ? .ok : .badRequest)
    }
}

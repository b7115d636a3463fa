import PreflightCore
import SQLKit
import Synchronization

extension ReportStore {
    /// The most reports a page holds.
    public static let maximumPageSize = 200

    /// Stores a report, within its owner's quota (``StoreQuota``): the index columns it copies
    /// from the report are capped (``ReportSummary/maximumIndexedTextLength``: a longer one is
    /// kept in the body only), and every column counts toward its size (``storedBytes(_:)``).
    /// - Throws: ``PreflightError`` `.reportConflict` when the account already has one with its
    ///   sid, `.storeQuotaExceeded` when its identity or account stored its window's allowance
    ///   (the error's `underlying` is a ``StoreQuotaRefusal``), `.storeUnavailable` when the store
    ///   fails.
    public func insert(_ report: StoredReport) async throws(PreflightError) {
        var report = report
        report.summary = report.summary.indexable
        let bytes = Self.storedBytes(report)
        let owner = StoreLedger.Owner(account: report.account, identity: report.identity)
        try takeQuota(owner, bytes: bytes, rows: 1)
        let inserted = try await withDatabase { [report] database in
            let summary = report.summary
            let rows = try await database.raw("""
                INSERT INTO preflight_reports (account, sid, kind, identity, edge, received_at, requested_edge,
                    selected_edge, call_quality, is_turn_required, mos, rtt, jitter, error_code, body, stored_bytes)
                VALUES (\(bind: report.account), \(bind: report.sid), \(bind: report.kind.rawValue), \(bind: report.identity),
                    \(bind: report.edge), \(bind: report.receivedAt), \(bind: summary.edge), \(bind: summary.selectedEdge),
                    \(bind: summary.callQuality), \(bind: summary.isTurnRequired.map { $0 ? 1 : 0 }), \(bind: Self.finite(summary.mos)),
                    \(bind: Self.finite(summary.rtt)), \(bind: Self.finite(summary.jitter)), \(bind: summary.errorCode), \(bind: report.body), \(bind: bytes))
                ON CONFLICT (account, sid) DO NOTHING RETURNING sid
                """).all()
            return !rows.isEmpty
        }
        guard inserted else {
            throw PreflightError(code: .reportConflict, message: "store: a report \(report.sid) is already stored")
        }
        await charge(owner, in: .reports, bytes: bytes, rows: 1)
    }

    /// What a report costs a store: every text column (the body, the sid, the account, identity
    /// and edge, the kind, the two edges the report names), the copies of the account, identity
    /// and sid in the primary key and the indexes, and a row's overhead for the numeric columns,
    /// the row header and the index entries (``reportRowOverhead``).
    static func storedBytes(_ report: StoredReport) -> Int {
        let summary = report.summary
        let columns = [report.body, report.sid, report.account, report.identity, report.edge, report.kind.rawValue, summary.edge ?? "", summary.selectedEdge ?? ""]
            .reduce(0) { $0 + $1.utf8.count }
        // (account, sid), (account, received_at), (account, identity, received_at).
        let indexCopies = 3 * report.account.utf8.count + report.sid.utf8.count + report.identity.utf8.count
        return columns + indexCopies + reportRowOverhead
    }

    /// A report row's bytes besides its text: eight numeric columns, the row's header, the
    /// entries of its primary key and three indexes.
    static let reportRowOverhead = 512

    /// One report of `account`, with its body; `nil` when there is none.
    public func report(account: String, sid: String) async throws(PreflightError) -> StoredReport? {
        try await withDatabase { database in
            try await database.raw("""
                SELECT \(unsafeRaw: Self.columns), body FROM preflight_reports
                WHERE account = \(bind: account) AND sid = \(bind: sid)
                """).first(decoding: ReportRow.self, with: Self.rowDecoder)?.report
        }
    }

    /// A page of `account`'s reports matching `filter`, newest first, without their bodies.
    /// - Parameters:
    ///   - pageSize: 1–``maximumPageSize``.
    ///   - pageToken: the previous page's ``ReportPage/nextPageToken``.
    /// - Throws: ``PreflightError`` `.invalidQuery` for a page size out of range or a token that
    ///   is not one.
    public func reports(
        account: String, filter: ReportFilter, pageSize: Int = 50, pageToken: String? = nil
    ) async throws(PreflightError) -> ReportPage {
        guard (1...Self.maximumPageSize).contains(pageSize) else {
            throw PreflightError(code: .invalidQuery, message: "reports: pageSize must be 1–\(Self.maximumPageSize), got \(pageSize)")
        }
        var conditions = Self.conditions(account: account, filter: filter)
        if let pageToken {
            guard let (receivedAt, sid) = Self.cursor(pageToken) else {
                throw PreflightError(code: .invalidQuery, message: "reports: pageToken is not one this edge made")
            }
            conditions.append("(received_at < \(bind: receivedAt) OR (received_at = \(bind: receivedAt) AND sid < \(bind: sid)))")
        }
        let whereClause = conditions.joined(separator: " AND ")
        let rows = try await withDatabase { database in
            try await database.raw("""
                SELECT \(unsafeRaw: Self.columns), '' AS body FROM preflight_reports WHERE \(whereClause)
                ORDER BY received_at DESC, sid DESC LIMIT \(literal: pageSize + 1)
                """).all(decoding: ReportRow.self, with: Self.rowDecoder)
        }
        let reports = rows.prefix(pageSize).map(\.report)
        let next = rows.count > pageSize ? reports.last.map { "\($0.receivedAt).\($0.sid)" } : nil
        return ReportPage(reports: Array(reports), nextPageToken: next)
    }

    static let columns =
        "sid, kind, account, identity, edge, received_at, requested_edge, selected_edge, call_quality, is_turn_required, mos, rtt, jitter, error_code"

    static let rowDecoder = SQLRowDecoder(keyDecodingStrategy: .convertFromSnakeCase)

    /// The `WHERE` terms of `filter` for `account`.
    static func conditions(account: String, filter: ReportFilter) -> [SQLQueryString] {
        var terms: [SQLQueryString] = ["account = \(bind: account)"]
        if let from = filter.from { terms.append("received_at >= \(bind: from)") }
        if let to = filter.to { terms.append("received_at < \(bind: to)") }
        if let identity = filter.identity { terms.append("identity = \(bind: identity)") }
        if let edge = filter.edge { terms.append("edge = \(bind: edge)") }
        if let kind = filter.kind { terms.append("kind = \(bind: kind.rawValue)") }
        if let quality = filter.callQuality { terms.append("call_quality = \(bind: quality)") }
        if let turn = filter.isTurnRequired { terms.append("is_turn_required = \(bind: turn ? 1 : 0)") }
        if let code = filter.errorCode { terms.append("error_code = \(bind: code)") }
        return terms
    }

    /// A page token's received time and sid.
    static func cursor(_ token: String) -> (Int64, String)? {
        let parts = token.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let receivedAt = Int64(parts[0]), ReportUpload.isValidSid(String(parts[1])) else { return nil }
        return (receivedAt, String(parts[1]))
    }

    /// NaN and infinities are not stored (PostgreSQL would take them, SQLite not).
    static func finite(_ value: Double?) -> Double? {
        value.flatMap { $0.isFinite ? $0 : nil }
    }
}

/// A `preflight_reports` row.
struct ReportRow: Decodable {
    var sid: String
    var kind: String
    var account: String
    var identity: String
    var edge: String
    var receivedAt: Int64
    var requestedEdge: String?
    var selectedEdge: String?
    var callQuality: Int?
    var isTurnRequired: Int?
    var mos: Double?
    var rtt: Double?
    var jitter: Double?
    var errorCode: Int?
    var body: String

    var report: StoredReport {
        StoredReport(
            sid: sid, kind: ReportKind(rawValue: kind) ?? .preflightTest, account: account, identity: identity, edge: edge,
            receivedAt: receivedAt,
            summary: ReportSummary(
                sid: sid, edge: requestedEdge, selectedEdge: selectedEdge, callQuality: callQuality,
                isTurnRequired: isTurnRequired.map { $0 != 0 }, mos: mos, rtt: rtt, jitter: jitter, errorCode: errorCode),
            body: body)
    }
}

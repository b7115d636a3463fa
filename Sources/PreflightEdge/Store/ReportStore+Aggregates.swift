import Foundation
import PreflightCore
import SQLKit

extension ReportStore {
    /// The most reports one aggregate query reads; a wider range is refused (70707).
    public static let maximumAggregatedReports = 500_000

    /// `account`'s reports matching `filter`, added up per edge and UTC day, in edge then day
    /// order. The quantiles are computed here, not in SQL, so that SQLite and PostgreSQL give the
    /// same figures.
    /// - Throws: ``PreflightError`` `.invalidQuery` when more than ``maximumAggregatedReports``
    ///   match: narrow the range.
    public func aggregates(account: String, filter: ReportFilter) async throws(PreflightError) -> [ReportAggregate] {
        let whereClause = Self.conditions(account: account, filter: filter).joined(separator: " AND ")
        let limit = Self.maximumAggregatedReports
        let rows = try await withDatabase { database in
            try await database.raw("""
                SELECT edge, received_at, mos, is_turn_required, error_code FROM preflight_reports WHERE \(whereClause)
                LIMIT \(literal: limit + 1)
                """).all(decoding: AggregateRow.self, with: Self.rowDecoder)
        }
        guard rows.count <= limit else {
            throw PreflightError(code: .invalidQuery, message: "aggregates: more than \(limit) reports match; narrow from/to")
        }
        var groups: [GroupKey: [AggregateRow]] = [:]
        for row in rows {
            groups[GroupKey(edge: row.edge, day: Self.day(row.receivedAt)), default: []].append(row)
        }
        return groups.keys.sorted { ($0.edge, $0.day) < ($1.edge, $1.day) }.map { key in
            let members = groups[key] ?? []
            let scores = members.compactMap(\.mos).filter(\.isFinite).sorted()
            let turns = members.compactMap(\.isTurnRequired)
            var failures: [String: Int] = [:]
            for code in members.compactMap(\.errorCode) { failures[String(code), default: 0] += 1 }
            return ReportAggregate(
                edge: key.edge, day: key.day, count: members.count, mosMedian: Self.quantile(scores, 0.5),
                mosPercentile10: Self.quantile(scores, 0.1),
                turnShare: turns.isEmpty ? nil : Double(turns.filter { $0 != 0 }.count) / Double(turns.count),
                failuresByCode: failures)
        }
    }

    /// The nearest-rank quantile of sorted values (the median of an even count is the mean of
    /// the middle two); `nil` for none.
    static func quantile(_ sorted: [Double], _ q: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        if q == 0.5 {
            let middle = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        }
        let rank = Int((q * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// `YYYY-MM-DD` (UTC) of a time in ms since the epoch.
    static func day(_ milliseconds: Int64) -> String {
        let days = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        return String(format: "%04lld-%02lld-%02lld", y, m, d)
    }
}

private struct GroupKey: Hashable {
    var edge: String
    var day: String
}

/// The columns an aggregate reads.
struct AggregateRow: Decodable {
    var edge: String
    var receivedAt: Int64
    var mos: Double?
    var isTurnRequired: Int?
    var errorCode: Int?
}

import Foundation
import PreflightCore
import SQLKit

extension ReportStore {
    /// The most edge-and-day groups one aggregate query answers; more is refused (70707).
    public static let maximumAggregateGroups = 1000
    /// The MOS values the quantiles count: measurements (``ReportSummary/measuredMOSRange``). A
    /// report that measured none (MOS 0), or a row from before uploads were range-checked (or
    /// written by another program) with a value outside the range, is counted in its group but
    /// not in its MOS figures, so that no stored value can make a figure infinite or the answer
    /// unencodable.
    static let lowestMOS = ReportSummary.measuredMOSRange.lowerBound
    static let highestMOS = ReportSummary.measuredMOSRange.upperBound

    /// `account`'s reports matching `filter`, added up per edge and UTC day, in edge then day
    /// order. Counts, the TURN share and the failures are summed in SQL (`GROUP BY`); each
    /// group's MOS median and 10th percentile are read with `ORDER BY mos LIMIT 1 OFFSET k`, so no
    /// query holds more than a group's row in memory, and SQLite and PostgreSQL give the same
    /// figures (nearest rank; the median of an even count is the mean of the middle two).
    /// - Throws: ``PreflightError`` `.invalidQuery` for more than ``maximumAggregateGroups`` groups.
    public func aggregates(account: String, filter: ReportFilter) async throws(PreflightError) -> [ReportAggregate] {
        let conditions = Self.conditions(account: account, filter: filter)
        let whereClause = conditions.joined(separator: " AND ")
        let limit = Self.maximumAggregateGroups
        let groups = try await withDatabase { database in
            try await database.raw("""
                SELECT edge, received_at / 86400000 AS day_index, COUNT(*) AS reports,
                    SUM(CASE WHEN mos >= \(literal: Self.lowestMOS) AND mos <= \(literal: Self.highestMOS) THEN 1 ELSE 0 END) AS scored,
                    COUNT(is_turn_required) AS turn_known, SUM(CASE WHEN is_turn_required = 1 THEN 1 ELSE 0 END) AS turn_needed
                FROM preflight_reports WHERE \(whereClause)
                GROUP BY edge, received_at / 86400000 ORDER BY edge, day_index LIMIT \(literal: limit + 1)
                """).all(decoding: GroupRow.self, with: Self.rowDecoder)
        }
        guard groups.count <= limit else {
            throw PreflightError(code: .invalidQuery, message: "aggregates: more than \(limit) edge-days match; narrow from/to")
        }
        let failures = try await withDatabase { database in
            try await database.raw("""
                SELECT edge, received_at / 86400000 AS day_index, error_code, COUNT(*) AS reports FROM preflight_reports
                WHERE \(whereClause) AND error_code IS NOT NULL
                GROUP BY edge, received_at / 86400000, error_code LIMIT \(literal: 100_000)
                """).all(decoding: FailureRow.self, with: Self.rowDecoder)
        }
        var failuresByGroup: [GroupKey: [String: Int]] = [:]
        for row in failures {
            failuresByGroup[GroupKey(edge: row.edge, dayIndex: row.dayIndex), default: [:]][String(row.errorCode)] = row.reports
        }
        var aggregates: [ReportAggregate] = []
        for group in groups {
            let key = GroupKey(edge: group.edge, dayIndex: group.dayIndex)
            var median: Double?
            var tenth: Double?
            if group.scored > 0 {
                let n = group.scored
                let lower = try await mos(at: (n - 1) / 2, in: key, conditions: conditions)
                let upper = n % 2 == 1 ? lower : try await mos(at: n / 2, in: key, conditions: conditions)
                // Halves added, never the sum halved: no two finite values overflow.
                median = lower.flatMap { low in upper.map { low / 2 + $0 / 2 } }
                tenth = try await mos(at: max(Int((0.1 * Double(n)).rounded(.up)), 1) - 1, in: key, conditions: conditions)
            }
            aggregates.append(ReportAggregate(
                edge: group.edge, day: Self.day(group.dayIndex * 86_400_000), count: group.reports, mosMedian: median,
                mosPercentile10: tenth, turnShare: group.turnKnown > 0 ? Double(group.turnNeeded) / Double(group.turnKnown) : nil,
                failuresByCode: failuresByGroup[key] ?? [:]))
        }
        return aggregates
    }

    /// The `offset`-th smallest MOS of one group.
    private func mos(at offset: Int, in key: GroupKey, conditions: [SQLQueryString]) async throws(PreflightError) -> Double? {
        let terms = conditions + [
            "edge = \(bind: key.edge)", "received_at >= \(bind: key.dayIndex * 86_400_000)",
            "received_at < \(bind: (key.dayIndex + 1) * 86_400_000)", "mos >= \(literal: Self.lowestMOS)",
            "mos <= \(literal: Self.highestMOS)",
        ]
        let whereClause = terms.joined(separator: " AND ")
        return try await withDatabase { database in
            try await database.raw("""
                SELECT mos FROM preflight_reports WHERE \(whereClause) ORDER BY mos LIMIT 1 OFFSET \(literal: max(offset, 0))
                """).first()?.decode(column: "mos", as: Double.self)
        }
    }

    /// `YYYY-MM-DD` (UTC) of a time in ms since the epoch (received times: from 1970 on).
    static func day(_ milliseconds: Int64) -> String {
        let days = max(milliseconds, 0) / 86_400_000
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = z / 146_097
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
    var dayIndex: Int64
}

/// One edge-day's sums.
struct GroupRow: Decodable {
    var edge: String
    var dayIndex: Int64
    var reports: Int
    var scored: Int
    var turnKnown: Int
    var turnNeeded: Int
}

/// One edge-day's count of one error code.
struct FailureRow: Decodable {
    var edge: String
    var dayIndex: Int64
    var errorCode: Int
    var reports: Int
}

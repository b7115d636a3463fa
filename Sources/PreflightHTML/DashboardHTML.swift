import Foundation
import PreflightModel

/// The edge's dashboard (`/dashboard`): a filter form, the aggregates per edge and day, and the
/// recent reports linking to their pages. Server-rendered, no script.
public enum DashboardHTML {
    /// The filters the form shows and keeps.
    public static let filterNames = ["from", "to", "identity", "edge", "kind", "callQuality", "isTurnRequired", "errorCode"]

    /// The page.
    /// - Parameters:
    ///   - edgeName: the edge serving it.
    ///   - filters: the query's filter values, shown back in the form.
    ///   - error: a refusal of the filters, shown above the tables.
    public static func render(
        edgeName: String, rows: [ReportListItem], aggregates: [ReportAggregate], filters: [String: String], error: String? = nil
    ) -> String {
        var html = PageStyle.head("Preflight dashboard · \(edgeName)")
        html += "<h1>Preflight dashboard</h1><p class=\"muted\">Edge \(HTMLText.escape(edgeName)) · newest \(rows.count) report(s)</p>\n"
        html += "<form class=\"filters card\" method=\"get\" action=\"/dashboard\" id=\"filters\">"
        for name in filterNames {
            html += "<label>\(name)<input name=\"\(name)\" value=\"\(HTMLText.escape(filters[name] ?? "", limit: 256))\"></label>"
        }
        html += "<button type=\"submit\">Filter</button></form>\n"
        if let error { html += "<p class=\"card verdict bad\" id=\"error\">\(HTMLText.escape(error))</p>\n" }
        html += "<h2>Per edge and day</h2><table id=\"aggregates\"><tr><th>edge</th><th>day (UTC)</th><th>reports</th><th>MOS median</th>"
            + "<th>MOS 10th pct</th><th>TURN share</th><th>failures</th></tr>"
        html += aggregates.map { row in
            let failures = row.failuresByCode.sorted { $0.key < $1.key }.map { "\($0.key) × \($0.value)" }.joined(separator: ", ")
            return "<tr class=\"aggregate\"><td>\(HTMLText.escape(row.edge))</td><td>\(HTMLText.escape(row.day))</td><td>\(row.count)</td>"
                + "<td>\(row.mosMedian.map { HTMLText.number($0, 2) } ?? "–")</td><td>\(row.mosPercentile10.map { HTMLText.number($0, 2) } ?? "–")</td>"
                + "<td>\(row.turnShare.map { HTMLText.number($0 * 100, 0) + " %" } ?? "–")</td><td>\(HTMLText.escape(failures))</td></tr>"
        }.joined() + "</table>\n"
        html += "<h2>Recent reports</h2><table id=\"reports\"><tr><th>received (UTC)</th><th>report</th><th>kind</th><th>identity</th>"
            + "<th>edge</th><th>quality</th><th>MOS</th><th>RTT ms</th><th>TURN</th><th>error</th></tr>"
        html += rows.map { row in
            // The sid is safe in a path (the edge checks it at upload), and escaped all the same.
            "<tr class=\"report\" data-sid=\"\(HTMLText.escape(row.sid))\"><td>\(HTMLText.escape(ReportHTML.time(row.receivedAt)))</td>"
                + "<td><a href=\"/reports/\(HTMLText.escape(row.sid))\">\(HTMLText.escape(row.sid))</a></td><td>\(HTMLText.escape(row.kind.rawValue))</td>"
                + "<td>\(HTMLText.escape(row.identity))</td><td>\(HTMLText.escape(row.edge))</td>"
                + "<td>\(row.callQuality.map(String.init) ?? "–")</td><td>\(row.mos.map { HTMLText.number($0, 2) } ?? "–")</td>"
                + "<td>\(row.rtt.map { HTMLText.number($0, 1) } ?? "–")</td><td>\(row.isTurnRequired.map { $0 ? "yes" : "no" } ?? "–")</td>"
                + "<td>\(row.errorCode.map(String.init) ?? "")</td></tr>"
        }.joined() + "</table>\n"
        return html + PageStyle.tail
    }
}

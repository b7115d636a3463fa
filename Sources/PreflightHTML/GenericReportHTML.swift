import Foundation

/// The page of a stored report that is not a preflight test (a last-mile probe, a connectivity
/// check, a pre-call diagnosis): its indexed fields and its JSON as uploaded (not re-indented: a
/// hostile, deeply nested body would grow a hundredfold).
public enum GenericReportHTML {
    /// The page: `title`, `fields` as a table (name, value), and `json` (the report as uploaded).
    public static func render(title: String, fields: [(String, String)], json: String) -> String {
        var html = PageStyle.head(title)
        html += "<h1>\(HTMLText.escape(title))</h1>\n<table id=\"fields\">"
        html += fields.map { "<tr><th>\(HTMLText.escape($0.0))</th><td>\(HTMLText.escape($0.1))</td></tr>" }.joined()
        html += "</table>\n"
        html += "<h2>Report JSON</h2><pre id=\"json\" class=\"wrap\">\(HTMLText.escape(json, limit: 2_000_000))</pre>\n"
        return html + PageStyle.tail
    }
}

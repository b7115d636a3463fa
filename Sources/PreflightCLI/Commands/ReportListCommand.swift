import ArgumentParser
import Foundation
import PreflightCore

/// `preflight report list`: a page of the account's reports, newest first.
public struct ReportListCommand: AsyncParsableCommand {
    /// The command's name and abstract.
    public static let configuration = CommandConfiguration(commandName: "list", abstract: "List stored reports, newest first.")

    /// The edge and key.
    @OptionGroup public var api: ReportAPIOptions
    /// The filters.
    @OptionGroup(title: "Filters") public var filter: ReportFilterOptions
    /// Page size.
    @Option(name: .customLong("page-size"), help: "Reports per page, 1–200 (default 50).")
    public var pageSize: Int = 50
    /// Page token.
    @Option(name: .customLong("page-token"), help: "The nextPageToken of the previous page.")
    public var pageToken: String?
    /// JSON output.
    @Flag(help: "Print the API's JSON.")
    public var json = false

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// Lists.
    public func run() async throws {
        print(try await output())
    }

    /// What ``run()`` prints: the table, or the API's JSON with `--json`.
    /// - Parameter environment: where the API key and the edge are read when not given as options.
    public func output(environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> String {
        var items = filter.items
        items.append(URLQueryItem(name: "pageSize", value: String(pageSize)))
        if let pageToken { items.append(URLQueryItem(name: "pageToken", value: pageToken)) }
        let body = try await api.get(ReportFilterOptions.path("/v1/reports", items), environment: environment)
        return json ? UntrustedText.forTerminal(String(decoding: body, as: UTF8.self)) : try ReportListText.render(body)
    }
}

/// `preflight report list`'s table.
enum ReportListText {
    struct Page: Decodable {
        var reports: [ReportListItem]
        var nextPageToken: String?
    }

    static func render(_ body: [UInt8]) throws -> String {
        guard let page = try? JSONDecoder().decode(Page.self, from: Data(body)) else {
            throw CommandFailure(PreflightError(code: .malformed, message: "report list: the edge's answer is not a report page"))
        }
        var lines = ["received (UTC)        sid                                   kind               identity         edge        MOS   RTT ms  TURN   error"]
        let formatter = ISO8601DateFormatter()
        for item in page.reports {
            let time = formatter.string(from: Date(timeIntervalSince1970: Double(item.receivedAt) / 1000))
            func pad(_ text: String, _ width: Int) -> String {
                let clean = UntrustedText.excerpt(text, limit: width)
                return clean.count >= width ? String(clean.prefix(width - 1)) + " " : clean + String(repeating: " ", count: width - clean.count)
            }
            lines.append(
                pad(time, 22) + pad(item.sid, 38) + pad(item.kind.rawValue, 19) + pad(item.identity, 17) + pad(item.edge, 12)
                    + pad(item.mos.map { String(format: "%.2f", $0) } ?? "-", 6) + pad(item.rtt.map { String(format: "%.1f", $0) } ?? "-", 8)
                    + pad(item.isTurnRequired.map { $0 ? "yes" : "no" } ?? "-", 7) + (item.errorCode.map(String.init) ?? "-"))
        }
        lines.append("\(page.reports.count) report(s)" + (page.nextPageToken.map { "; next page: --page-token \($0)" } ?? ""))
        return lines.joined(separator: "\n")
    }
}

import ArgumentParser
import Foundation
import PreflightCore

/// `preflight report show SID`: one report as the edge stored it (its fields and the report's JSON).
public struct ReportShowCommand: AsyncParsableCommand {
    /// The command's name and abstract.
    public static let configuration = CommandConfiguration(commandName: "show", abstract: "Print one stored report's JSON.")

    /// The edge and key.
    @OptionGroup public var api: ReportAPIOptions
    /// The sid.
    @Argument(help: "The report's sid (a preflight test's callSid, or the RP… sid the edge gave).")
    public var sid: String

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// Checks the sid's characters before it goes into a URL.
    public func validate() throws {
        guard ReportUpload.isValidSid(sid) else { throw ValidationError("the sid must be 1–64 letters, digits, - or _") }
    }

    /// Prints.
    public func run() async throws {
        print(try await output())
    }

    /// What ``run()`` prints: the report's fields and JSON, with any control character escaped
    /// for the terminal (``UntrustedText/forTerminal(_:)``).
    public func output(environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> String {
        UntrustedText.forTerminal(String(decoding: try await api.get("/v1/reports/\(sid)", environment: environment), as: UTF8.self))
    }
}

/// `preflight report aggregates`: per edge and UTC day.
public struct ReportAggregatesCommand: AsyncParsableCommand {
    /// The command's name and abstract.
    public static let configuration = CommandConfiguration(
        commandName: "aggregates", abstract: "Count, MOS median and 10th percentile, TURN share and failures per edge and day (JSON).")

    /// The edge and key.
    @OptionGroup public var api: ReportAPIOptions
    /// The filters.
    @OptionGroup(title: "Filters") public var filter: ReportFilterOptions

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// Prints.
    public func run() async throws {
        print(try await output())
    }

    /// What ``run()`` prints: the API's JSON, any control character escaped for the terminal.
    public func output(environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> String {
        UntrustedText.forTerminal(
            String(decoding: try await api.get(ReportFilterOptions.path("/v1/aggregates", filter.items), environment: environment), as: UTF8.self))
    }
}

/// `preflight report html SID --output FILE`: a stored report's page, as the edge serves it at
/// `/reports/{sid}`, saved to a file.
public struct ReportHTMLCommand: AsyncParsableCommand {
    /// The command's name and abstract.
    public static let configuration = CommandConfiguration(commandName: "html", abstract: "Save a stored report's HTML page.")

    /// The edge and key.
    @OptionGroup public var api: ReportAPIOptions
    /// The sid.
    @Argument(help: "The report's sid.")
    public var sid: String
    /// Where to write.
    @Option(name: [.short, .long], help: "The file to write (default: <sid>.html).")
    public var output: String?

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// Checks the sid's characters before it goes into a URL.
    public func validate() throws {
        guard ReportUpload.isValidSid(sid) else { throw ValidationError("the sid must be 1–64 letters, digits, - or _") }
    }

    /// Fetches and writes.
    public func run() async throws {
        try await save()
    }

    /// Fetches the page and writes it; the path written.
    @discardableResult
    public func save(environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> String {
        let page = try await api.get("/reports/\(sid)", environment: environment)
        let path = output ?? "\(sid).html"
        do {
            try Data(page).write(to: URL(fileURLWithPath: path))
        } catch {
            throw CommandFailure(PreflightError(code: .fileUnwritable, message: "cannot write \(path)", underlying: error))
        }
        FileHandle.standardError.write(Data("\(path): \(page.count) bytes\n".utf8))
        return path
    }
}

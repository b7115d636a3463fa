import ArgumentParser
import Foundation
import PreflightCore

/// The filters of `report list` and `report aggregates`, as the API's query parameters.
public struct ReportFilterOptions: ParsableArguments, Sendable {
    /// Received from.
    @Option(help: "Received at or after: an ISO 8601 time (2026-11-26T00:00:00Z) or ms since the epoch.")
    public var from: String?
    /// Received before.
    @Option(help: "Received before: an ISO 8601 time or ms since the epoch.")
    public var to: String?
    /// The uploading identity.
    @Option(help: "Only reports of this identity.")
    public var identity: String?
    /// The storing edge.
    @Option(name: .customLong("stored-by"), help: "Only reports stored by the edge of this name.")
    public var storedBy: String?
    /// What produced them.
    @Option(help: "preflightTest, lastmileProbe, connectivityCheck or preCallDiagnosis.")
    public var kind: String?
    /// The callQuality.
    @Option(name: .customLong("call-quality"), help: "0 excellent … 4 degraded.")
    public var callQuality: Int?
    /// TURN use.
    @Option(name: .customLong("turn-required"), help: "true or false.")
    public var turnRequired: Bool?
    /// The error code.
    @Option(name: .customLong("error-code"), help: "Only reports that ended with this error code.")
    public var errorCode: Int?

    /// Creates the options (ArgumentParser requirement).
    public init() {}

    /// The query items.
    var items: [URLQueryItem] {
        var items: [URLQueryItem] = []
        func add(_ name: String, _ value: String?) { if let value { items.append(URLQueryItem(name: name, value: value)) } }
        add("from", from)
        add("to", to)
        add("identity", identity)
        add("edge", storedBy)
        add("kind", kind)
        add("callQuality", callQuality.map(String.init))
        add("isTurnRequired", turnRequired.map { $0 ? "true" : "false" })
        add("errorCode", errorCode.map(String.init))
        return items
    }

    /// `path` with `items` as its query.
    static func path(_ path: String, _ items: [URLQueryItem]) -> String {
        var components = URLComponents()
        components.path = path
        components.queryItems = items.isEmpty ? nil : items
        // `+` means a space in a query: an ISO time's offset must keep its plus.
        return (components.string ?? path).replacingOccurrences(of: "+", with: "%2B")
    }
}

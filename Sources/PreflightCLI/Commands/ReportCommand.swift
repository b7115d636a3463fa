import ArgumentParser
import Foundation
import PreflightCore
import PreflightNIO

/// `preflight report list|show|aggregates`: the reports an edge stored, through its REST API
/// (docs/openapi.yaml), with an API key of the account.
public struct ReportCommand: AsyncParsableCommand {
    /// The command's name, abstract and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Reports stored by an edge: list, show one, save one's HTML page, aggregates per edge and day.",
        subcommands: [ReportListCommand.self, ReportShowCommand.self, ReportHTMLCommand.self, ReportAggregatesCommand.self])

    /// Creates the command (ArgumentParser requirement).
    public init() {}
}

/// The edge and the API key every `report` subcommand needs.
public struct ReportAPIOptions: ParsableArguments, Sendable {
    /// The edge's HTTP base or signaling URL (named as ``EdgeConnectionOptions`` names it).
    @Option(
        name: .customLong("edge-url"),
        help: "The edge: http[s]://host:port or its signaling URL (default: PREFLIGHT_EDGE, else http://127.0.0.1:8080).")
    public var edgeURL: String?

    /// The API key.
    @OptionGroup(title: "API key")
    public var credentials: CredentialOptions

    /// A PEM file of CA certificates to trust for `https`.
    @Option(name: .customLong("edge-ca-file"), help: "A PEM file of CA certificates to trust for an https:// --edge-url besides the system's.")
    public var edgeCAFile: String?

    /// Seconds to wait for the answer.
    @Option(help: "Seconds to wait for the edge's answer (default 10).")
    public var timeout: Int = 10

    /// `--edge` and `--ca-file`, the old spellings (hidden; ``validate()`` moves them).
    @Option(name: .customLong("edge"), help: .hidden)
    var edgeOldSpelling: String?
    @Option(name: .customLong("ca-file"), help: .hidden)
    var caFileOldSpelling: String?

    /// Creates the options (ArgumentParser requirement).
    public init() {}

    /// Moves the old spellings to the options' names.
    public mutating func validate() throws {
        edgeURL = try OldSpelling.merge(edgeOldSpelling, into: edgeURL, oldName: "--edge", newName: "--edge-url")
        edgeCAFile = try OldSpelling.merge(caFileOldSpelling, into: edgeCAFile, oldName: "--ca-file", newName: "--edge-ca-file")
        (edgeOldSpelling, caFileOldSpelling) = (nil, nil)
    }

    /// GETs `path` with HTTP Basic auth; the body of a 200, or the edge's coded error.
    func get(_ path: String, environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> [UInt8] {
        guard (1...300).contains(timeout) else { throw ValidationError("--timeout must be 1–300 seconds, got \(timeout)") }
        guard let key = credentials.apiKey ?? environment["PREFLIGHT_API_KEY"], !key.isEmpty else {
            throw ValidationError("an API key sid is needed: --api-key or PREFLIGHT_API_KEY")
        }
        guard let secret = try CredentialOptions.apiSecretSource.resolve(
            value: credentials.apiSecret, file: credentials.apiSecretFile, environment: environment)
        else { throw ValidationError("an API key secret is needed: --api-secret-file or PREFLIGHT_API_SECRET") }
        let basic = Data("\(key):\(secret)".utf8).base64EncodedString()
        let reply: EdgeHTTPClient.Reply
        do {
            reply = try await EdgeHTTPClient.send(
                edge: edgeURL ?? environment["PREFLIGHT_EDGE"] ?? "http://127.0.0.1:8080", method: "GET", path: path,
                authorization: "Basic \(basic)", trustedCertificatesFile: edgeCAFile, timeout: .seconds(timeout),
                maximumLength: 16 << 20, failure: .reportNotFound)
        } catch {
            throw CommandFailure(error)
        }
        guard reply.status == 200 else {
            struct Refusal: Decodable {
                var code: Int
                var message: String
            }
            let refusal = try? JSONDecoder().decode(Refusal.self, from: Data(reply.body))
            throw CommandFailure(PreflightError(
                code: PreflightError.Code(refusal?.code ?? PreflightError.Code.reportNotFound.rawValue),
                message: "the edge answered HTTP \(reply.status): \(UntrustedText.quoted(String((refusal?.message ?? "").prefix(300))))"))
        }
        return reply.body
    }
}

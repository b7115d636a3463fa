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
    /// The edge's HTTP base or signaling URL.
    @Option(help: "The edge: http[s]://host:port or its signaling URL (default: PREFLIGHT_EDGE, else http://127.0.0.1:8080).")
    public var edge: String?

    /// The API key.
    @OptionGroup(title: "API key")
    public var credentials: CredentialOptions

    /// A PEM file of CA certificates to trust for `https`.
    @Option(name: .customLong("ca-file"), help: "PEM CA certificates to trust for an https edge besides the system's.")
    public var caFile: String?

    /// Seconds to wait for the answer.
    @Option(help: "Seconds to wait for the edge's answer (default 10).")
    public var timeout: Int = 10

    /// Creates the options (ArgumentParser requirement).
    public init() {}

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
                edge: edge ?? environment["PREFLIGHT_EDGE"] ?? "http://127.0.0.1:8080", method: "GET", path: path,
                authorization: "Basic \(basic)", trustedCertificatesFile: caFile, timeout: .seconds(timeout),
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

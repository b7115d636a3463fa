import ArgumentParser
import Foundation
import PreflightCLI
import PreflightCore
import PreflightEdge
import PreflightNIO
import Synchronization
import PreflightTesting
import Testing

/// `preflight report list|show|html|aggregates` against a local edge's API, `run --html`,
/// `run --roaming` and `serve --database` rules.
@Suite(.realTime, .serialized) struct ReportCommandTests {
    /// What `preflight <arguments>` prints, with the local edge's key in the environment.
    static func run(_ arguments: [String], edge: LocalEdge) async throws -> String {
        let environment = [
            "PREFLIGHT_API_KEY": LocalEdge.apiKeySID, "PREFLIGHT_API_SECRET": edge.server.configuration.apiKeys[LocalEdge.apiKeySID] ?? "",
        ]
        let command = try PreflightCommand.parseAsRoot(arguments)
        switch command {
        case let list as ReportListCommand: return try await list.output(environment: environment)
        case let show as ReportShowCommand: return try await show.output(environment: environment)
        case let aggregates as ReportAggregatesCommand: return try await aggregates.output(environment: environment)
        case let html as ReportHTMLCommand: return try await html.save(environment: environment)
        default: throw PreflightError(code: .invalidArgument, message: "not a report command: \(arguments)")
        }
    }

    @Test func listShowHTMLAndAggregatesReadWhatATestUploaded() async throws {
        try await LocalEdge.withRunning { edge in
            let token = try await edge.token(identity: "cli-user")
            let html = FileManager.default.temporaryDirectory.appendingPathComponent("preflight-run-\(UUID().uuidString).html").path
            defer { try? FileManager.default.removeItem(atPath: html) }
            let command = try #require(try PreflightCommand.parseAsRoot([
                "run", "--edge-url", edge.signalingURL, "--token", token, "--duration", "1", "--html", html,
            ]) as? RunCommand)
            try await command.run()
            let page = try String(contentsOfFile: html, encoding: .utf8)
            #expect(page.contains("<svg class=\"chart\"") && page.contains("id=\"verdict\""))
            let base = edge.signalingURL
            let list = try await Self.run(["report", "list", "--edge-url", base, "--identity", "cli-user"], edge: edge)
            let sid = try #require(list.split(separator: "\n").dropFirst().first?.split(separator: " ", omittingEmptySubsequences: true).dropFirst(1).first)
            #expect(sid.hasPrefix("CA"), "\(list)")
            #expect(list.contains("preflightTest") && list.contains("1 report(s)"))
            let json = try await Self.run(["report", "list", "--edge-url", base, "--json", "--kind", "lastmileProbe"], edge: edge)
            #expect(json.trimmingCharacters(in: .whitespacesAndNewlines) == #"{"reports":[]}"#)
            let shown = try await Self.run(["report", "show", String(sid), "--edge-url", base], edge: edge)
            #expect(shown.contains(#""report":{"#) && shown.contains(String(sid)))
            let saved = FileManager.default.temporaryDirectory.appendingPathComponent("preflight-stored-\(UUID().uuidString).html").path
            defer { try? FileManager.default.removeItem(atPath: saved) }
            _ = try await Self.run(["report", "html", String(sid), "--edge-url", base, "--output", saved], edge: edge)
            #expect(try String(contentsOfFile: saved, encoding: .utf8).contains(String(sid)))
            let aggregates = try await Self.run(["report", "aggregates", "--edge-url", base, "--from", "2000-01-01T00:00:00Z"], edge: edge)
            #expect(aggregates.contains(#""count":1"#), "\(aggregates)")
        }
    }

    /// A stored report whose text holds terminal escape sequences (escaped in its JSON) is printed
    /// with no raw control byte: `report show` cannot retitle, clear or write the admin's clipboard.
    @Test func showPrintsNoControlByte() async throws {
        try await LocalEdge.withRunning { edge in
            let token = try await edge.token(identity: "cli-user")
            let body = #"{"title":"\u001b]0;pwned\u0007\u001b]52;c;aGk=\u0007\u001b[2J","callSid":"CAnotmine"}"#
            let reply = try await EdgeHTTPClient.send(
                edge: edge.signalingURL, method: "POST", path: "/v1/reports?kind=preflightTest", authorization: "Bearer \(token)",
                body: Array(body.utf8), timeout: .seconds(10), maximumLength: 1 << 16, failure: .malformed)
            #expect(reply.status == 201)
            struct Receipt: Decodable { var sid: String }
            let sid = try JSONDecoder().decode(Receipt.self, from: Data(reply.body)).sid
            let shown = try await Self.run(["report", "show", sid, "--edge-url", edge.signalingURL], edge: edge)
            #expect(!shown.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
            #expect(shown.contains("pwned"))
        }
    }

    @Test func aMissingReportAndAWrongKeyFailWithTheirCodes() async throws {
        try await LocalEdge.withRunning { edge in
            await #expect(throws: CommandFailure.self) {
                _ = try await Self.run(["report", "show", "CAmissing", "--edge-url", edge.signalingURL], edge: edge)
            }
            do {
                _ = try await Self.run(["report", "show", "CAmissing", "--edge-url", edge.signalingURL], edge: edge)
            } catch let failure as CommandFailure {
                #expect(failure.error.code == .reportNotFound)
            }
            do {
                _ = try await Self.run(["report", "list", "--edge-url", edge.signalingURL, "--api-key", "SKwrong"], edge: edge)
                Issue.record("a wrong key listed reports")
            } catch let failure as CommandFailure {
                #expect(failure.error.code == .invalidAccessToken)
            }
        }
    }

    @Test(arguments: [
        (["report", "show", "../etc"], "the sid must be 1–64 letters, digits, - or _"),
        (["serve", "--database", "mysql://x"], "database: unknown scheme in \"mysql://x\"; give sqlite::memory:, sqlite:PATH or postgres://USER:PASSWORD@HOST:PORT/DATABASE"),
        (["serve", "--retention-days", "0"], "--retention-days (PREFLIGHT_RETENTION_DAYS) must be 1 to 36500, got 0"),
        (["run", "--roaming", "ws://a:1/signaling"], "--roaming takes --token and no --edge-url"),
    ] as [([String], String)])
    func rulesAreNamed(_ arguments: [String], _ rule: String) throws {
        if arguments.first == "serve", arguments.contains("--database") {
            // The database is checked with the environment, when the configuration is made.
            let command = try #require(try PreflightCommand.parseAsRoot(arguments) as? ServeCommand)
            let error = #expect(throws: ValidationError.self) {
                _ = try command.edgeConfiguration(environment: [
                    "PREFLIGHT_API_KEY": "SK1", "PREFLIGHT_API_SECRET": String(repeating: "s", count: 32), "PREFLIGHT_ACCOUNT": "AC1",
                ])
            }
            #expect(error?.message == rule)
            return
        }
        let error = #expect(throws: (any Error).self) { try PreflightCommand.parseAsRoot(arguments) }
        #expect(error.map { PreflightCommand.message(for: $0) } == rule)
    }

    @Test func serveTakesADatabaseAndARetention() throws {
        let command = try #require(try PreflightCommand.parseAsRoot([
            "serve", "--database", "postgres://u:p@db:5433/reports?sslmode=require", "--retention-days", "30",
        ]) as? ServeCommand)
        let configuration = try command.edgeConfiguration(environment: [
            "PREFLIGHT_API_KEY": "SK1", "PREFLIGHT_API_SECRET": String(repeating: "s", count: 32), "PREFLIGHT_ACCOUNT": "AC1",
        ])
        #expect(configuration.store == .postgres(.init(host: "db", port: 5433, username: "u", password: "p", database: "reports", tls: .require)))
        #expect(configuration.reportRetention == .seconds(30 * 86_400))
        #expect(configuration.prometheusRegistry != nil)
    }
}

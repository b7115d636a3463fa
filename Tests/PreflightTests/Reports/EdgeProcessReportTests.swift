import Foundation
import Preflight
import PreflightCore
import PreflightEdge
import PreflightNIO
import PreflightTesting
import Testing

/// The store, the REST API and `/metrics` of real `preflight serve` processes: the OpenAPI
/// document checked against one, its metrics scraped around a test, and two edges sharing one
/// PostgreSQL database.
@Suite(.realTime, .serialized) struct EdgeProcessReportTests {
    static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    static func get(_ edge: EdgeProcess, _ path: String) async throws -> (status: UInt, text: String) {
        let basic = Data("\(LocalEdge.apiKeySID):\(edge.secret)".utf8).base64EncodedString()
        let reply = try await EdgeHTTPClient.send(
            edge: edge.signalingURL, method: "GET", path: path, authorization: "Basic \(basic)", timeout: .seconds(10),
            maximumLength: 8 << 20, failure: .malformed)
        return (reply.status, String(decoding: reply.body, as: UTF8.self))
    }

    @Test(.enabled(if: ExternalTool.canRun(needing: "python3"), "needs python3 with PyPI's openapi-spec-validator and jsonschema"))
    func theOpenAPIDocumentMatchesTheEdge() async throws {
        let edge = try await EdgeProcess.start(executable: AttackedEdge.executable)
        defer { edge.kill() }
        let base = edge.signalingURL.replacingOccurrences(of: "ws://", with: "http://").replacingOccurrences(of: "/signaling", with: "")
        // A test of the token's identity, not uploaded: the check uploads it (201, then 409).
        let token = try await edge.token()
        var options = PreflightOptions(accessToken: token, edgeURL: edge.signalingURL, duration: .seconds(1))
        options.uploadsReport = false
        let report = try await PreflightTest.run(options: options).result()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("preflight-openapi-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try report.jsonData().write(to: file)
        let output = try await ExternalTool.run("python3", [
            Self.repository.appendingPathComponent("scripts/openapi-check").path, "--base", base, "--key", LocalEdge.apiKeySID,
            "--secret", edge.secret, "--token", token, "--report", file.path,
        ])
        #expect(output.contains("0 mismatches"), "\(output)")
        #expect(output.contains("the document is valid OpenAPI"))
    }

    /// A sample's value from the Prometheus text: the line that starts with `series` (name and labels).
    static func value(_ metrics: String, _ series: String) -> Double? {
        for line in metrics.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.split(separator: " ").last ?? "")
        }
        return nil
    }

    @Test func metricsMoveWithATest() async throws {
        let edge = try await EdgeProcess.start(executable: AttackedEdge.executable)
        defer { edge.kill() }
        let before = try await Self.get(edge, "/metrics")
        #expect(before.status == 200)
        #expect(Self.value(before.text, "preflight_edge_datagrams_received_total") ?? 0 == 0)
        let test = PreflightTest.run(options: PreflightOptions(
            accessToken: try await edge.token(), edgeURL: edge.signalingURL, duration: .seconds(2)))
        let report = try await test.result()
        let after = try await Self.get(edge, "/metrics").text
        let received = try #require(Self.value(after, "preflight_edge_datagrams_received_total"))
        let sent = try #require(Self.value(after, "preflight_edge_datagrams_sent_total"))
        // Every packet the test sent reached the edge and every echo it received left it, plus
        // ICE checks and RTCP.
        let last = try #require(report.statsSamples.last)
        #expect(last.packetsSent > 0)
        #expect(received >= Double(last.packetsSent), "\(last.packetsSent) sent; \(after)")
        #expect(sent >= Double(last.packetsReceived), "\(last.packetsReceived) received; \(after)")
        let quality = report.callQuality.map { String($0.rawValue) } ?? "none"
        #expect(Self.value(after, #"preflight_edge_tests_total{kind="preflightTest",outcome="completed",call_quality="\#(quality)"}"#) == 1, "\(after)")
        #expect(Self.value(after, "preflight_edge_report_mos_count") == 1)
        #expect(Self.value(after, "preflight_edge_report_rtt_ms_count") == 1)
        #expect(Self.value(after, "preflight_edge_report_ice_connection_seconds_count") == 1)
        let mosSum = try #require(Self.value(after, "preflight_edge_report_mos_sum"))
        #expect(abs(mosSum - report.networkStats.mos.average) < 1e-6)
        #expect(Self.value(after, #"preflight_edge_turn_total{kind="preflightTest",required="false"}"#) == 1)
        #expect((Self.value(after, #"preflight_edge_store_seconds_count{operation="insert"}"#) ?? 0) >= 1)
        #expect(after.contains("preflight_edge_signaling_sessions"))
        #expect(after.contains(#"preflight_edge_datagrams_dropped_total{reason="malformed"}"#))
    }

    @Test(.enabled(if: PostgresTestDatabase.canRun, Comment(rawValue: PostgresTestDatabase.skipReason)))
    func twoEdgesSharingPostgreSQLSeeEachOthersReports() async throws {
        let database = try await PostgresTestDatabase.create()
        try await withBlockingCleanup({ database.drop() }) {
            let ashburn = try await EdgeProcess.start(executable: AttackedEdge.executable, arguments: ["--database", database.url, "--edge-name", "ashburn"])
            defer { ashburn.kill() }
            // The second edge's own key: both trust the same account (its key's secret differs).
            let dublin = try await EdgeProcess.start(executable: AttackedEdge.executable, arguments: ["--database", database.url, "--edge-name", "dublin"])
            defer { dublin.kill() }
            let first = try await PreflightTest.run(options: PreflightOptions(
                accessToken: try await ashburn.token(identity: "alice"), edgeURL: ashburn.signalingURL, duration: .seconds(1))).result()
            let second = try await PreflightTest.run(options: PreflightOptions(
                accessToken: try await dublin.token(identity: "bob"), edgeURL: dublin.signalingURL, duration: .seconds(1))).result()
            for edge in [ashburn, dublin] {
                let page = try JSONDecoder().decode(ReportAPI.Page.self, from: Data(try await Self.get(edge, "/v1/reports").text.utf8))
                #expect(page.reports.map(\.sid) == [second.callSid, first.callSid])
                #expect(page.reports.map(\.edge) == ["dublin", "ashburn"])
                let (status, text) = try await Self.get(edge, "/v1/reports/\(first.callSid)")
                #expect(status == 200 && text.contains(first.callSid))
                let aggregates = try await Self.get(edge, "/v1/aggregates").text
                #expect(aggregates.contains(#""edge":"ashburn""#) && aggregates.contains(#""edge":"dublin""#))
            }
            // The schema was made once, a row per version: both edges found it.
            #expect(try await PostgresTestDatabase.psql("SELECT count(*) FROM preflight_schema", database: database.name).trimmingCharacters(in: .whitespacesAndNewlines) == "\(ReportStore.schemaVersion)")
        }
    }
}

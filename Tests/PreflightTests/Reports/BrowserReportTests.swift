import Foundation
import NIOCore
import Preflight
import PreflightCore
import PreflightEdge
import PreflightNIO
import PreflightTesting
import Testing

/// The report page and the dashboard in a real browser: headless Chromium from Debian, driven by
/// Playwright (scripts/browser-check), against an edge that stored a test run through 15 % loss
/// each way, so that warnings are raised and drawn. Screenshots go to .build/test-artefacts/.
@Suite(.loadsTheMachine, .serialized) struct BrowserReportTests {
    static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    @Test(.enabled(
        if: ExternalTool.canRun(needing: "python3", "chromium-headless-shell"),
        "needs python3 with PyPI's playwright and Debian's chromium-headless-shell"))
    func theReportPageAndTheDashboardRenderInChromium() async throws {
        let relay = try await ImpairmentRelay.start(upstream: Impairment(loss: 0.15), downstream: Impairment(loss: 0.15), seed: 11)
        defer { relay.stop() }
        guard case .v4(let front) = relay.address else {
            Issue.record("relay is not IPv4")
            return
        }
        var configuration = LocalEdge.configuration()
        configuration.advertisedAddress = front.host
        configuration.advertisedMediaPort = relay.address.port
        let output = try await LocalEdge.withRunning(configuration: configuration) { edge in
            relay.setTarget(edge.addresses.media)
            let token = try await edge.token(identity: "alice")
            let report = try await PreflightTest.run(options: PreflightOptions(accessToken: token, edgeURL: edge.signalingURL, duration: .seconds(9)))
                .result()
            #expect(!report.warnings.isEmpty, "15 % loss raised no warning")
            // A second report of another identity, for the dashboard's filter.
            let probe = try await EdgeHTTPClient.send(
                edge: edge.signalingURL, method: "POST", path: "/v1/reports?kind=lastmileProbe",
                authorization: "Bearer \(try await edge.token(identity: "bob"))", body: Array(#"{"rtt":21.5,"edge":"local"}"#.utf8),
                timeout: .seconds(5), maximumLength: 4096, failure: .malformed)
            #expect(probe.status == 201)
            let base = edge.signalingURL.replacingOccurrences(of: "ws://", with: "http://").replacingOccurrences(of: "/signaling", with: "")
            return try await ExternalTool.run("python3", [
                Self.repository.appendingPathComponent("scripts/browser-check").path, "--base", base, "--key", LocalEdge.apiKeySID,
                "--secret", edge.server.configuration.apiKeys[LocalEdge.apiKeySID] ?? "", "--sid", report.callSid, "--identity", "alice",
                "--out", Self.repository.appendingPathComponent(".build/test-artefacts").path,
            ])
        }
        print(output)
        #expect(output.contains(#""failures": []"#), "\(output)")
        #expect(FileManager.default.fileExists(atPath: Self.repository.appendingPathComponent(".build/test-artefacts/report.png").path))
        #expect(FileManager.default.fileExists(atPath: Self.repository.appendingPathComponent(".build/test-artefacts/dashboard.png").path))
    }
}

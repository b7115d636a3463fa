import Foundation
import Preflight
import PreflightCore
import PreflightEdge
import PreflightTesting
import Testing

/// Every feature ends by uploading its report to the edge, which serves it back through the
/// REST API byte for byte, indexed by the token's account and identity.
@Suite(.realTime, .serialized) struct ReportUploadTests {
    @Test func aCompletedPreflightTestIsStoredAndReadsBackAsTheSameReport() async throws {
        try await LocalEdge.withRunning { edge in
            let token = try await edge.token(identity: "alice")
            let test = PreflightTest.run(options: PreflightOptions(accessToken: token, edgeURL: edge.signalingURL, duration: .seconds(2)))
            let report = try await test.result()
            // No wait: the upload happens before the result is delivered.
            let stored = try JSONDecoder().decode(PreflightReport.self, from: try await ReportAPI.storedReport(edge, sid: report.callSid))
            #expect(stored == report)
            let page = try await ReportAPI.decode(ReportAPI.Page.self, edge, "/v1/reports")
            let item = try #require(page.reports.first)
            #expect(page.reports.count == 1)
            #expect(item.sid == report.callSid)
            #expect(item.kind == .preflightTest)
            #expect(item.identity == "alice")
            #expect(item.edge == "local")
            #expect(item.mos == report.networkStats.mos.average)
            #expect(item.rtt == report.networkStats.rtt.average)
            #expect(item.callQuality == report.callQuality?.rawValue)
            #expect(item.isTurnRequired == report.isTurnRequired)
            #expect(item.errorCode == nil)
        }
    }

    @Test func aFailedTestUploadsItsPartialReportWithTheError() async throws {
        var configuration = LocalEdge.configuration()
        configuration.maximumTestDuration = .seconds(1)
        try await LocalEdge.withRunning(configuration: configuration) { edge in
            let token = try await edge.token()
            let test = PreflightTest.run(options: PreflightOptions(accessToken: token, edgeURL: edge.signalingURL, duration: .seconds(4)))
            await #expect(throws: PreflightError.self) { _ = try await test.result() }
            let partial = test.partialReport
            let code = try #require(partial.error?.code)
            let page = try await ReportAPI.decode(ReportAPI.Page.self, edge, "/v1/reports?errorCode=\(code)")
            #expect(page.reports.map(\.sid) == [partial.callSid])
            let stored = try JSONDecoder().decode(PreflightReport.self, from: try await ReportAPI.storedReport(edge, sid: partial.callSid))
            #expect(stored == partial)
        }
    }

    @Test func turnedOffNothingIsUploaded() async throws {
        try await LocalEdge.withRunning { edge in
            var options = PreflightOptions(accessToken: try await edge.token(), edgeURL: edge.signalingURL, duration: .seconds(1))
            options.uploadsReport = false
            _ = try await PreflightTest.run(options: options).result()
            #expect(try await ReportAPI.decode(ReportAPI.Page.self, edge, "/v1/reports").reports.isEmpty)
        }
    }

    @Test func aProbeAndAConnectivityCheckAreStoredUnderTheirKinds() async throws {
        try await LocalEdge.withRunning { edge in
            let probe = LastmileProbe(options: LastmileProbeOptions(accessToken: try await edge.token(identity: "prober"), edgeURL: edge.signalingURL))
            let events = probe.events()
            try probe.start(config: LastmileProbeConfig(probeUplink: true, probeDownlink: false, expectedUplinkBitrate: 500_000))
            var result: LastmileProbeResult?
            for await event in events {
                if case .lastmileProbeResult(let value) = event { result = value }
            }
            let probed = try #require(result)
            var options = ConnectivityCheckOptions(accessToken: try await edge.token(identity: "checker"), edge: edge.signalingURL)
            options.duration = .seconds(5)
            options.videoBitrate = 200
            let checked = try await Diagnostics(options: options).connectivityCheck()
            let page = try await ReportAPI.decode(ReportAPI.Page.self, edge, "/v1/reports")
            #expect(page.reports.map(\.kind) == [.connectivityCheck, .lastmileProbe])
            #expect(page.reports.map(\.identity) == ["checker", "prober"])
            // Neither carries a sid of its own: the edge made one.
            #expect(page.reports.allSatisfy { $0.sid.hasPrefix("RP") && $0.sid.count == 34 })
            #expect(page.reports.last?.rtt == probed.rtt)
            let storedProbe = try JSONDecoder().decode(
                LastmileProbeResult.self, from: try await ReportAPI.storedReport(edge, sid: try #require(page.reports.last?.sid)))
            #expect(storedProbe == probed)
            let storedCheck = try JSONDecoder().decode(
                ConnectivityCheckResult.self, from: try await ReportAPI.storedReport(edge, sid: try #require(page.reports.first?.sid)))
            #expect(storedCheck == checked)
            let kinds = try await ReportAPI.decode(ReportAPI.Page.self, edge, "/v1/reports?kind=lastmileProbe")
            #expect(kinds.reports.map(\.identity) == ["prober"])
        }
    }
}

import Foundation
import NIOCore
import NIOPosix
import Preflight
import PreflightCore
import PreflightEdge
import PreflightHTML
import PreflightNIO
import PreflightTesting
import Testing

/// The path diagnosis against real sockets on loopback (one hop: the destination). The lab
/// (`scripts/lab path`) runs it over a chain of routers.
@Suite(.realTime, .serialized) struct PathDiagnosisTests {
    /// A closed port answers with ICMP port unreachable, which comes back on the socket's error
    /// queue (`IP_RECVERR`): the destination found at TTL 1, from its own address.
    @Test func aClosedPortAnswersThroughTheErrorQueue() async throws {
        #if os(Linux)
            let port = try await Self.closedUDPPort()
            let outcome = await PathProbing.run(
                host: "127.0.0.1", port: port, configuration: .init(probeBudget: 6, duration: 3, answerTimeout: 0.5))
            #expect(outcome.error == nil)
            #expect(outcome.destination == "127.0.0.1:\(port)")
            let hop = try #require(outcome.hops.first)
            #expect(outcome.hops.count == 1)
            #expect(hop.reachedDestination && hop.address == "127.0.0.1")
            #expect(outcome.probesSent <= 6 && outcome.answersReceived >= 1)
        #endif
    }

    @Test func aTestDiagnosesItsPathBesideItsMedia() async throws {
        try await LocalEdge.withRunning { edge in
            let token = try await edge.token(application: .echo)
            var options = PreflightOptions(accessToken: token, edgeURL: edge.signalingURL, duration: .seconds(3))
            options.pathDiagnosis = PathDiagnosisOptions()
            let test = PreflightTest.run(options: options)
            let report = try await test.result()
            let path = try #require(report.pathDiagnosis)
            #if os(Linux)
                #expect(path.error == nil)
                let pair = try #require(report.selectedIceCandidatePair)
                #expect(path.destination == "\(pair.remoteCandidate.ip):\(pair.remoteCandidate.port)")
                #expect(path.hops.count == 1)
                #expect(path.hops.first?.note == .destination)
                // The budget: 5 % of 90 % of 100 packets a second for 3 s.
                #expect(path.probesSent >= 1 && path.probesSent <= PathDiagnosisOptions().probeBudget(seconds: 3))
                #expect(path.answersReceived >= 1)
                #expect(path.testPackets >= 200)
                #expect(path.blames.isEmpty)
                #expect(path.summary.hasPrefix("No loss, jitter or delay to worry a call on the 1 hop to the edge."))
                // The report page draws it.
                let page = ReportHTML.render(report)
                #expect(page.contains("id=\"path\"") && page.contains("class=\"chart path-chart\" data-hops=\"1\""))
            #else
                #expect(path.error?.code == PreflightError.Code.pathDiagnosisUnavailable.rawValue)
            #endif
            // The field survives the report's JSON; a test without the option has none.
            let decoded = try JSONDecoder().decode(PreflightReport.self, from: JSONEncoder().encode(report))
            #expect(decoded.pathDiagnosis == path)
        }
    }

    @Test func badOptionsRefuseTheTestBeforeItStarts() async throws {
        for path in [
            PathDiagnosisOptions(probeShare: 0.6), PathDiagnosisOptions(probeShare: .nan), PathDiagnosisOptions(maximumHops: 0),
            PathDiagnosisOptions(privateNetworks: ["10.0.0.0/33"]),
        ] {
            var options = PreflightOptions(accessToken: "a.b.c", edgeURL: "ws://127.0.0.1:9/signaling", duration: .seconds(1))
            options.pathDiagnosis = path
            options.uploadsReport = false
            let error = await #expect(throws: PreflightError.self) { try await PreflightTest.run(options: options).result() }
            #expect(error?.code == .invalidPathDiagnosisOption)
        }
    }

    /// A port nothing listens on: bound, read, and closed again.
    static func closedUDPPort() async throws -> UInt16 {
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = UInt16(try #require(channel.localAddress?.port))
        try await channel.close()
        return port
    }
}

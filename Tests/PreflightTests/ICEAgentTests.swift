import Foundation
import NIOCore
import Preflight
import PreflightCore
import PreflightEdge
import PreflightTesting
import Testing

/// The SDK's ICE agent end to end on loopback: a local edge and coturn (CI installs it).
@Suite(.realTime, .serialized, .timeLimit(.minutes(10))) struct ICEAgentTests {
    /// Whether the tests that start coturn run: skipped without it outside CI, fail without it under CI=true.
    static let coturn = ExternalTool.canRun(needing: "turnserver")

    static func outcome(of test: PreflightTest) async -> Result<PreflightReport, PreflightError> {
        for await event in test.events() {
            switch event {
            case .completed(let report): return .success(report)
            case .failed(let error, _): return .failure(error)
            default: continue
            }
        }
        return .failure(PreflightError(code: .cancelled, message: "no result"))
    }

    @Test(
        .enabled(if: ICEAgentTests.coturn, "needs coturn's turnserver on PATH (apt-get install coturn)"),
        arguments: [ICEServerURL.Transport.udp, .tcp])
    func relayOnlyMediaFlowsThroughCoturn(transport: ICEServerURL.Transport) async throws {
        let turn = try await TURNServerProcess.start()
        defer { turn.stop() }
        let credentials = turn.credentials()
        try await LocalEdge.withRunning { edge in
            let options = PreflightOptions(
                accessToken: try await edge.token(), edgeURL: edge.signalingURL, duration: .seconds(3),
                iceServers: [ICEServer(urls: [turn.url(transport: transport)], username: credentials.username, credential: credentials.password)],
                // What is tested is the relayed path, not how fast a just-started coturn
                // allocates on a machine busy with the other tests (over 3 s, once).
                iceTransportPolicy: .relay, gatheringTimeout: .seconds(10))
            let test = PreflightTest.run(options: options)
            let report = try await Self.outcome(of: test).get()
            let pair = try #require(report.selectedIceCandidatePair)
            #expect(pair.localCandidate.candidateType == .relay)
            #expect(pair.localCandidate.url == turn.url(transport: transport))
            #expect(pair.localCandidate.ip == "127.0.0.1")
            #expect(report.isTurnRequired == true)
            #expect(report.iceCandidates.filter { !$0.isRemote }.allSatisfy { $0.candidateType == .relay })
            #expect(report.statsSamples.count >= 2)
            #expect(report.statsSamples.allSatisfy { $0.packetsLostFraction == 0 })
            let pairs = report.iceCandidatePairs
            #expect(pairs.contains { $0.nominated && $0.state == "succeeded" && $0.responsesReceived > 0 })
            let names = report.timeline.map { "\($0.group):\($0.name)" }
            for expected in [
                "ice-gathering-state:gathering", "ice-gathering-state:complete", "signaling-state:have-local-offer",
                "signaling-state:stable", "ice-connection-state:checking", "ice-connection-state:connected",
                "pc-connection-state:connected", "ice-connection-state:closed",
            ] {
                #expect(names.contains(expected), "timeline lacks \(expected): \(names)")
            }
            #expect(report.timeline.map(\.timestamp) == report.timeline.map(\.timestamp).sorted())
        }
    }

    @Test(.enabled(if: ICEAgentTests.coturn, "needs coturn's turnserver on PATH (apt-get install coturn)"))
    func theEdgeHandsOutRESTCredentialsThatCoturnAccepts() async throws {
        let turn = try await TURNServerProcess.start()
        defer { turn.stop() }
        var configuration = LocalEdge.configuration()
        configuration.iceServers = [ICEServer(urls: [turn.url(transport: .udp)])]
        configuration.turnSecret = turn.secret
        try await LocalEdge.withRunning(configuration: configuration) { edge in
            // All candidates: the host pair wins on loopback, the relay is gathered beside it.
            let test = PreflightTest.run(options: PreflightOptions(
                accessToken: try await edge.token(identity: "alice"), edgeURL: edge.signalingURL, duration: .seconds(2)))
            let report = try await Self.outcome(of: test).get()
            #expect(report.isTurnRequired == false)
            #expect(report.selectedIceCandidatePair?.localCandidate.candidateType == .host)
            let relay = try #require(report.iceCandidates.first { $0.candidateType == .relay })
            #expect(relay.url == turn.url(transport: .udp))
            #expect(relay.relatedAddress == "127.0.0.1")
            #expect(report.iceCandidateErrors.isEmpty, "\(report.iceCandidateErrors)")

            // And with relay only, through the welcome's credentials.
            let relayed = PreflightTest.run(options: PreflightOptions(
                accessToken: try await edge.token(identity: "alice"), edgeURL: edge.signalingURL, duration: .seconds(2),
                iceTransportPolicy: .relay))
            let relayReport = try await Self.outcome(of: relayed).get()
            #expect(relayReport.isTurnRequired == true)
        }
    }

    @Test(.enabled(if: ICEAgentTests.coturn, "needs coturn's turnserver on PATH (apt-get install coturn)"))
    func refusedTURNCredentialsFailTheRelayOnlyTestWithTheReasonAndAPartialReport() async throws {
        let turn = try await TURNServerProcess.start()
        defer { turn.stop() }
        let credentials = turn.credentials()
        try await LocalEdge.withRunning { edge in
            let start = ContinuousClock.now
            let test = PreflightTest.run(options: PreflightOptions(
                accessToken: try await edge.token(), edgeURL: edge.signalingURL, duration: .seconds(2),
                iceServers: [ICEServer(urls: [turn.url(transport: .udp)], username: credentials.username, credential: "wrong")],
                iceTransportPolicy: .relay))
            let result = await Self.outcome(of: test)
            let elapsed = ContinuousClock.now - start
            guard case .failure(let error) = result else {
                Issue.record("the test completed without a usable candidate")
                return
            }
            #expect(error.code == .mediaConnectionFailed)
            #expect(error.message.contains("401"), "\(error.message)")
            #expect(elapsed < .seconds(5), "failed after \(elapsed)")
            let partial = test.partialReport
            let refusal = try #require(partial.iceCandidateErrors.first)
            #expect(refusal.errorCode == 401)
            #expect(refusal.url == turn.url(transport: .udp))
            #expect(partial.selectedIceCandidatePair == nil)
            #expect(partial.isTurnRequired == nil)
            #expect(partial.timeline.contains { $0.group == .iceGatheringState && $0.name == "complete" })
        }
    }

    @Test func anUnreachableTURNServerIsReportedAs701AfterTheGatheringTimeout() async throws {
        try await LocalEdge.withRunning { edge in
            // A TCP port nobody listens on: connection refused at once.
            let test = PreflightTest.run(options: PreflightOptions(
                accessToken: try await edge.token(), edgeURL: edge.signalingURL, duration: .seconds(1),
                iceServers: [ICEServer(urls: ["turn:127.0.0.1:9?transport=tcp"], username: "u", credential: "p")],
                iceTransportPolicy: .relay, gatheringTimeout: .seconds(1)))
            let result = await Self.outcome(of: test)
            guard case .failure(let error) = result else {
                Issue.record("completed without a candidate")
                return
            }
            #expect(error.code == .mediaConnectionFailed)
            let record = try #require(test.partialReport.iceCandidateErrors.first)
            #expect(record.errorCode == ICECandidateErrorRecord.unreachable)
        }
    }

    @Test(.enabled(
        if: ExternalTool.canRun(needing: "turnserver", "openssl"),
        "needs coturn's turnserver and openssl on PATH (apt-get install coturn openssl)"))
    func relayOverTLSThroughCoturnVerifiesTheServerCertificate() async throws {
        let certificate = try await TestCertificate.make()
        defer { certificate.remove() }
        let turn = try await TURNServerProcess.start(certificate: (certificate.cert, certificate.key))
        defer { turn.stop() }
        let url = try #require(turn.tlsURL)
        let credentials = turn.credentials()
        try await LocalEdge.withRunning { edge in
            let trusted = PreflightTest.run(options: PreflightOptions(
                accessToken: try await edge.token(), edgeURL: edge.signalingURL, duration: .seconds(2),
                iceServers: [ICEServer(urls: [url], username: credentials.username, credential: credentials.password)],
                iceTransportPolicy: .relay, turnTrustedCertificatesFile: certificate.cert))
            let report = try await Self.outcome(of: trusted).get()
            #expect(report.isTurnRequired == true)
            #expect(report.selectedIceCandidatePair?.localCandidate.url == url)
            #expect(report.selectedIceCandidatePair?.localCandidate.priority ?? 0 < 1 << 24)  // TLS: type preference 0

            // Without trusting it, the self-signed certificate is refused: no relay, a 701 that says why.
            let untrusted = PreflightTest.run(options: PreflightOptions(
                accessToken: try await edge.token(), edgeURL: edge.signalingURL, duration: .seconds(1),
                iceServers: [ICEServer(urls: [url], username: credentials.username, credential: credentials.password)],
                iceTransportPolicy: .relay))
            guard case .failure(let error) = await Self.outcome(of: untrusted) else {
                Issue.record("an untrusted certificate was accepted")
                return
            }
            #expect(error.code == .mediaConnectionFailed)
            let record = try #require(untrusted.partialReport.iceCandidateErrors.first)
            #expect(record.errorCode == ICECandidateErrorRecord.unreachable)
            #expect(record.url == url)
        }
    }

    @Test func ipv6HostCandidatesConnectToAnIPv6Edge() async throws {
        // The edge listens on every address (dual stack) and advertises only ::1 for media.
        // Signaling stays on 127.0.0.1: swift-websocket 1.6 cannot parse an IPv6-literal URL.
        var configuration = LocalEdge.configuration()
        configuration.host = "::"
        configuration.advertisedAddress = "::1"
        try await LocalEdge.withRunning(configuration: configuration) { edge in
            let url = "ws://127.0.0.1:\(edge.addresses.http.port ?? 0)/signaling"
            let test = PreflightTest.run(options: PreflightOptions(
                accessToken: try await edge.token(), edgeURL: url, duration: .seconds(2)))
            let report = try await Self.outcome(of: test).get()
            let pair = try #require(report.selectedIceCandidatePair)
            #expect(pair.localCandidate.ip == "::1")
            #expect(pair.localCandidate.candidateType == .host)
            #expect(pair.remoteCandidate.ip == "::1")
            #expect(report.isTurnRequired == false)
            let local = report.iceCandidates.filter { !$0.isRemote }
            #expect(local.contains { $0.ip == "127.0.0.1" }, "the IPv4 host candidate is gathered too: \(local.map(\.ip))")
            #expect(report.iceCandidateErrors.isEmpty, "\(report.iceCandidateErrors)")  // the edge's stun:[::1] answered
            #expect(report.statsSamples.count >= 1)
            #expect(report.statsSamples.allSatisfy { $0.packetsLostFraction == 0 })
        }
    }
}

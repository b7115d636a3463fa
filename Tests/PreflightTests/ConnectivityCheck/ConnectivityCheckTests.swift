import Foundation
import Preflight
import PreflightEdge
import PreflightTesting
import Synchronization
import Testing

/// 100ms's connectivity check against a real edge: a good run reaches every state in order and
/// fills every field; each failure ends in its state with its errors and what was measured.
@Suite(.serialized) struct ConnectivityCheckTests {
    /// Runs a check and collects its progress.
    static func check(_ options: ConnectivityCheckOptions, region: String? = nil) async throws -> (ConnectivityCheckResult, [ConnectivityCheckState]) {
        let diagnostics = Diagnostics(options: options)
        let seen = Mutex<[ConnectivityCheckState]>([])
        let result = try await diagnostics.connectivityCheck(region: region) { state in seen.withLock { $0.append(state) } }
        return (result, seen.withLock { $0 })
    }

    @Test func aGoodRunReachesEveryStateInOrderAndFillsEveryField() async throws {
        try await LocalEdge.withRunning { edge in
            let token = try await edge.token()
            let options = ConnectivityCheckOptions(accessToken: token, edge: edge.signalingURL, duration: .seconds(6))
            // A region hint goes to the init endpoint as a query parameter, escaped.
            let (result, states) = try await Self.check(options, region: "eu west/1&x=y")
            print("connectivity check:", String(decoding: try result.jsonData(prettyPrinted: false), as: UTF8.self))
            #expect(states == ConnectivityCheckState.allCases, "progress \(states)")
            #expect(result.state == .completed)
            #expect(result.errors.isEmpty, "\(result.errors)")
            #expect(result.signallingReport.isInitConnected && result.signallingReport.isConnected)
            #expect(result.signallingReport.websocketUrl.hasPrefix("ws://127.0.0.1:"))
            let media = result.mediaServerReport
            #expect(media.isPublishICEConnected && media.isSubscribeICEConnected)
            #expect(media.publishICECandidatePairSelected != nil && media.subscribeICECandidatePairSelected != nil)
            #expect(!media.publishIceCandidatesGathered.isEmpty && !media.subscribeIceCandidatesGathered.isEmpty)
            #expect(media.publishICECandidatePairSelected?.localCandidate.port != media.subscribeICECandidatePairSelected?.localCandidate.port)
            for (name, stats) in [("audio", media.stats.audio), ("video", media.stats.video)] {
                #expect(stats.bytesSent > 0 && stats.packetsSent > 0, "\(name) \(stats)")
                // Loopback loses nothing: what went up came back down.
                #expect(stats.packetsReceived >= stats.packetsSent - 2, "\(name) \(stats)")
                #expect(stats.packetsLost == 0, "\(name) \(stats)")
                #expect(stats.roundTripTime > 0 && stats.roundTripTime < 50, "\(name) \(stats)")
            }
            // 50 audio packets a second of 160-byte PCMU: about 80 kbps with headers. A sender
            // starved of CPU (a loaded CI machine) falls behind its pacing, hence the low bound's
            // room; the high one catches counting the wrong bytes.
            #expect((55...100).contains(media.stats.audio.bitrateSent), "\(media.stats.audio)")
            // The 500 kbps profile: a frame's bytes every 1/30 s.
            #expect((450...620).contains(media.stats.video.bitrateSent), "\(media.stats.video)")
            #expect(abs(media.stats.video.bitrateReceived - media.stats.video.bitrateSent) < 60, "\(media.stats.video)")
            #expect(media.connectionQualityScore.value > 4, "\(media.connectionQualityScore)")
            #expect(result.deviceTestReport.camera.outcome == .notTested && result.deviceTestReport.camera.source == "synthetic testsrc")
            #expect(result.codec == "PCMU" && !result.edge.isEmpty)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            #expect(result.testTimestamp > now - 30_000 && result.testTimestamp <= now)
        }
    }

    @Test func aRefusedTokenEndsAtStartingWithTheTokensCode() async throws {
        try await LocalEdge.withRunning { edge in
            let other = try await LocalEdge.withRunning { other in try await other.token() }  // signed with another secret
            let (result, states) = try await Self.check(ConnectivityCheckOptions(accessToken: other, edge: edge.signalingURL, duration: .seconds(5)))
            #expect(states == [.starting])
            #expect(result.state == .starting)
            #expect(result.errors.count == 1 && (20101...20107).contains(result.errors.first?.code ?? 0), "\(result.errors)")
            #expect(!result.signallingReport.isInitConnected && result.signallingReport.websocketUrl.isEmpty)
        }
    }

    @Test func anUnreachableInitEndpointIs70601() async throws {
        // A port that was just free: nothing listens there.
        let port = try await LocalEdge.withRunning { edge in edge.signalingURL }
        let (result, _) = try await Self.check(ConnectivityCheckOptions(accessToken: "x", edge: port, duration: .seconds(5)))
        #expect(result.state == .starting)
        #expect(result.errors.map(\.code) == [70601], "\(result.errors)")
    }

    @Test func anUnreachableSignalingServerEndsAtInitFetched() async throws {
        var configuration = LocalEdge.configuration()
        configuration.publicSignalingURL = "ws://127.0.0.1:9/signaling"
        try await LocalEdge.withRunning(configuration: configuration) { edge in
            let (result, states) = try await Self.check(
                ConnectivityCheckOptions(accessToken: try await edge.token(), edge: edge.signalingURL, duration: .seconds(5)))
            #expect(states == [.starting, .initFetched])
            #expect(result.state == .initFetched)
            #expect(result.signallingReport.isInitConnected && !result.signallingReport.isConnected)
            #expect(result.signallingReport.websocketUrl == "ws://127.0.0.1:9/signaling")
            #expect(result.errors.map(\.code) == [PreflightError.Code.socketConnectionFailed.rawValue], "\(result.errors)")
        }
    }

    @Test func stoppingEndsWithWhatWasMeasured() async throws {
        try await LocalEdge.withRunning { edge in
            let diagnostics = Diagnostics(options: ConnectivityCheckOptions(accessToken: try await edge.token(), edge: edge.signalingURL))
            let states = diagnostics.connectivityStates()
            Task {
                for await state in states where state == .mediaPublished {
                    try? await Task.sleep(for: .seconds(1))
                    diagnostics.stopConnectivityCheck()
                    return
                }
            }
            let started = ContinuousClock.now
            let result = try await diagnostics.connectivityCheck()
            #expect(ContinuousClock.now - started < .seconds(10))
            #expect(result.state == .mediaPublished)
            #expect(result.errors.map(\.code) == [31008], "\(result.errors)")
            #expect(result.mediaServerReport.stats.audio.packetsReceived > 10)
        }
    }

    @Test func aSecondCheckWhileOneRunsIs70602() async throws {
        try await LocalEdge.withRunning { edge in
            let diagnostics = Diagnostics(
                options: ConnectivityCheckOptions(accessToken: try await edge.token(), edge: edge.signalingURL, duration: .seconds(5)))
            async let first = diagnostics.connectivityCheck()
            try await Task.sleep(for: .milliseconds(200))
            await #expect(throws: PreflightError.self) { _ = try await diagnostics.connectivityCheck() }
            let completed = await withCheckedContinuation { continuation in
                diagnostics.startConnectivityCheck { _ in } completion: { continuation.resume(returning: $0) }
            }
            #expect(completed.errors.map(\.code) == [70602])
            // The first one was not disturbed (no error of its own); stopping it now ends it as cancelled.
            diagnostics.stopConnectivityCheck()
            let stopped = try await first
            #expect(stopped.errors.map(\.code) == [31008], "\(stopped.errors)")
        }
    }

    @Test(arguments: [Duration.seconds(2), .seconds(121)]) func aDurationOutOfRangeIs70005(_ duration: Duration) async throws {
        let diagnostics = Diagnostics(options: ConnectivityCheckOptions(accessToken: "x", duration: duration))
        let error = await #expect(throws: PreflightError.self) { _ = try await diagnostics.connectivityCheck() }
        #expect(error?.code == .invalidArgument)
    }

    @Test func noRouteForMediaEndsAtSignallingConnected() async throws {
        // Relay only, and no TURN server: neither connection has a candidate that can reach the edge.
        try await LocalEdge.withRunning { edge in
            var options = ConnectivityCheckOptions(accessToken: try await edge.token(), edge: edge.signalingURL, duration: .seconds(8))
            options.iceTransportPolicy = .relay
            options.iceTimeout = .seconds(2)
            let (result, states) = try await Self.check(options)
            #expect(states == [.starting, .initFetched, .signallingConnected])
            #expect(result.state == .signallingConnected)
            #expect(!result.mediaServerReport.isPublishICEConnected && !result.mediaServerReport.isSubscribeICEConnected)
            #expect(result.errors.first.map { [53405, 53400, 31003].contains($0.code) } == true, "\(result.errors)")
            #expect(result.mediaServerReport.connectionQualityScore == .noData)
        }
    }
}

import Foundation
import Preflight
import PreflightEdge
import PreflightTesting
import Synchronization
import Testing

/// 100ms's connectivity check against a real edge: a good run reaches every state in order and
/// fills every field; each failure ends in its state with its errors and what was measured.
@Suite(.realTime, .serialized) struct ConnectivityCheckTests {
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
            let started = Int64(Date().timeIntervalSince1970 * 1000)
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
                // Every packet sent is accounted for: received, counted lost on the way down (a
                // busy host's receive buffer overflows while its event loop is starved), or in
                // flight when the figures were read (the track's packet rate over twice its RTT and
                // half a second more: frames a stalled pacer sends late, at once).
                let rate = result.mediaDuration > 0 ? Double(stats.packetsSent) / result.mediaDuration : 0
                let inFlight = Int64((rate * (2 * stats.roundTripTime / 1000 + 0.5)).rounded(.up)) + 2
                #expect(
                    stats.packetsReceived + stats.packetsLostDownlink + inFlight >= stats.packetsSent,
                    "\(name) \(stats), \(inFlight) in flight")
                #expect(stats.packetsReceived <= stats.packetsSent, "\(name) \(stats)")
                #expect(stats.packetsLost == 0, "\(name) \(stats)")
                // Measured, in milliseconds (a loopback round trip, which a busy host may stretch to a
                // second or more; microseconds or seconds would be out of range either way).
                #expect(stats.roundTripTime > 0 && stats.roundTripTime < 10_000, "\(name) \(stats)")
            }
            // A bitrate is what was sent (or received) in the media's window. Its pacing caps the
            // sender (50 packets a second of 160-byte PCMU: about 80 kbps with headers; the
            // 500 kbps video profile), so a figure above that counted the wrong bytes; how far
            // below it a sender starved of CPU falls is the benchmarks' to say, not a test's.
            #expect(result.mediaDuration > 0)
            for (name, stats, ceiling) in [("audio", media.stats.audio, 100.0), ("video", media.stats.video, 620.0)] {
                let sent = Double(stats.bytesSent) * 8 / result.mediaDuration / 1000
                let received = Double(stats.bytesReceived) * 8 / result.mediaDuration / 1000
                #expect(abs(stats.bitrateSent - sent) < 0.01 && abs(stats.bitrateReceived - received) < 0.01, "\(name) \(stats)")
                #expect(stats.bitrateSent > 0 && stats.bitrateSent <= ceiling, "\(name) \(stats)")
            }
            #expect(media.stats.video.bitrateReceived <= media.stats.video.bitrateSent, "\(media.stats.video)")
            // The score is 100ms's mapping of the E-model MOS of the check's own figures (how good
            // loopback stays on a busy host is the lab's to measure, not a test's).
            let sentPackets = media.stats.audio.packetsSent + media.stats.video.packetsSent
            let receivedPackets = media.stats.audio.packetsReceived + media.stats.video.packetsReceived
            let loss = max(0, Double(sentPackets - receivedPackets)) / Double(max(sentPackets, 1)) * 100
            let mos = MeanOpinionScore.mos(
                rtt: media.stats.audio.roundTripTime, jitter: max(media.stats.audio.jitter, media.stats.video.jitter), packetLossPercent: loss)
            #expect(abs(media.connectionQualityScore.value - ConnectionQualityScore(mos: mos).value) < 1e-9, "\(media.connectionQualityScore)")
            #expect(media.connectionQualityScore.value > 0)
            #expect(result.deviceTestReport.camera.outcome == .notTested && result.deviceTestReport.camera.source == "synthetic testsrc")
            #expect(result.codec == "PCMU" && !result.edge.isEmpty)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            #expect(result.testTimestamp >= started && result.testTimestamp <= now)
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
            // Stopped as soon as media came back (its default 20 s would end it completed).
            Task {
                for await state in states where state == .mediaPublished {
                    diagnostics.stopConnectivityCheck()
                    return
                }
            }
            let result = try await diagnostics.connectivityCheck()
            #expect(result.state == .mediaPublished)
            #expect(result.errors.map(\.code) == [31008], "\(result.errors)")
            // The handle's result throws the error that ended the check; lastResult keeps it.
            let error = await #expect(throws: PreflightError.self) { _ = try await diagnostics.result() }
            #expect(error?.code == .cancelled)
            #expect(diagnostics.lastResult == result)
            // What came back is in the result: at least the packet that published the media.
            let stats = result.mediaServerReport.stats
            #expect(stats.audio.packetsReceived + stats.video.packetsReceived > 0, "\(stats)")
            #expect(stats.audio.packetsSent + stats.video.packetsSent > 0, "\(stats)")
        }
    }

    @Test func aSecondCheckWhileOneRunsIs70602() async throws {
        try await LocalEdge.withRunning { edge in
            let diagnostics = Diagnostics(
                options: ConnectivityCheckOptions(accessToken: try await edge.token(), edge: edge.signalingURL, duration: .seconds(5)))
            let states = diagnostics.connectivityStates()
            async let first = diagnostics.connectivityCheck()
            #expect(await next(states) == .starting, "the first check never started")
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

    @Test func theResultOfNoCheckIs70005() async {
        let diagnostics = Diagnostics(options: ConnectivityCheckOptions(accessToken: "x"))
        let error = await #expect(throws: PreflightError.self) { _ = try await diagnostics.result() }
        #expect(error?.code == .invalidArgument)
        #expect(diagnostics.lastResult == nil)
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

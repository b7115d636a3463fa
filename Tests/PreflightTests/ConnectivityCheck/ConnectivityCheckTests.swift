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
    static func check(_ options: ConnectivityCheckOptions) async throws -> (ConnectivityCheckResult, [ConnectivityCheckState]) {
        let diagnostics = Diagnostics(options: options)
        let seen = Mutex<[ConnectivityCheckState]>([])
        let result = try await diagnostics.connectivityCheck { state in seen.withLock { $0.append(state) } }
        return (result, seen.withLock { $0 })
    }

    @Test func aGoodRunReachesEveryStateInOrderAndFillsEveryField() async throws {
        try await LocalEdge.withRunning { edge in
            let token = try await edge.token()
            let options = ConnectivityCheckOptions(accessToken: token, edge: edge.signalingURL, duration: .seconds(6))
            let (result, states) = try await Self.check(options)
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
            // 50 audio packets a second of 160-byte PCMU: about 80 kbps with headers.
            #expect((70...100).contains(media.stats.audio.bitrateSent), "\(media.stats.audio)")
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
}

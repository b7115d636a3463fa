import Foundation
import Preflight
import PreflightCore
import PreflightEdge
import PreflightTesting
import Synchronization
import Testing

/// Last-mile probes from the SDK to an in-process edge over loopback. Loopback is far faster than
/// any expected bitrate, so these probes end "at least the expected bitrate"; the figures against
/// a shaper of known rate are the accuracy benchmark's (scripts/bench-accuracy, docs/lab.md).
@Suite(.realTime, .serialized) struct LastmileProbeTests {
    @Test func bothDirectionsHoldTheExpectedBitrateOnLoopback() async throws {
        try await LocalEdge.withRunning { edge in
            let token = try await edge.token()
            let probe = LastmileProbe(options: LastmileProbeOptions(accessToken: token, edgeURL: edge.signalingURL))
            let events = probe.events()
            try probe.start(config: LastmileProbeConfig(expectedUplinkBitrate: 1_000_000, expectedDownlinkBitrate: 2_000_000))
            var qualities: [NetworkQuality] = []
            var results: [LastmileProbeResult] = []
            for await event in events {
                switch event {
                case .lastmileQuality(let quality): qualities.append(quality)
                case .lastmileProbeResult(let result): results.append(result)
                }
            }
            let result = try #require(results.first)
            #expect(results.count == 1)
            #expect(result.error == nil)
            #expect(result.edge == "local")
            #expect(result.loopback)
            #expect(result.rtt > 0 && result.rtt < 1000, "rtt \(result.rtt) ms")  // loopback, in ms; a busy host adds its delays
            // Loopback has no bottleneck under the ceiling: a direction holds its expected bitrate.
            // On a host busy with other tests, its scheduler can stall the receiver and make the
            // arrivals unusable: then the direction has no estimate and says why, but it never
            // reports a capacity (that is the lab's to prove: docs/lab.md).
            #expect(result.state != .unavailable)
            for (report, expected) in [(result.uplinkReport, 1_000_000), (result.downlinkReport, 2_000_000)] {
                let report = try #require(report)
                #expect(report.expectedBitrate == expected)
                #expect(report.probedBitrate > 0 && report.probedBitrate <= Double(expected) * 1.5)
                #expect(report.packetLossRate == 0)
                // Its ramp takes more than a second; how much more a busy machine adds is no
                // test's business, but it is part of the probe's own time.
                #expect(report.duration > 1 && report.duration <= result.duration, "\(report.duration) s of \(result.duration) s")
                // Counted against what was sent (past the knee a busy host's socket buffers may
                // drop some: receiveBufferErrors), each at least a minimal probe packet.
                #expect(report.packetsReceived > 0 && report.packetsReceived <= report.packetsSent, "\(report.packetsReceived) of \(report.packetsSent)")
                #expect(report.bytesSent > report.packetsSent * ProbePacket.minimumSize)
                #expect(report.halves.count == 2 || report.halves.isEmpty)
                switch report.state {
                case .complete:
                    #expect(report.atLeastExpected, "\(report)")
                    #expect(report.probedBitrate == Double(expected) * 1.5)
                    #expect(report.availableBandwidth >= Double(expected) / 1000)
                    #expect(report.availableBandwidth <= Double(expected) * 1.5 / 1000 * 1.05)
                    #expect(report.reason == nil)
                case .incompleteNoBwe:
                    #expect(report.reason != nil)
                    #expect(report.availableBandwidth == 0)
                case .unavailable:
                    Issue.record("a direction that ran is unavailable: \(report)")
                }
            }
            // A rating every 2 s from the start, the same ones the result lists.
            #expect(qualities.count == result.qualities.count)
            #expect(qualities.count >= Int(result.duration / 2) - 1 && qualities.count <= Int(result.duration / 2) + 1)
            #expect(result.qualities.map(\.quality) == qualities)
            // Down only before the path connected (a busy host may take more than the first 2 s).
            let connected = qualities.drop(while: { $0 == .down })
            #expect(!connected.isEmpty && !connected.contains(.down), "\(qualities)")
            #expect(probe.latestQuality == qualities.last ?? .unknown)
            // Asked again after the end, the result comes at once.
            #expect(try await probe.result() == result)
        }
    }

    @Test func oneDirectionLeavesTheOtherOut() async throws {
        try await LocalEdge.withRunning { edge in
            let probe = LastmileProbe(options: LastmileProbeOptions(accessToken: try await edge.token(), edgeURL: edge.signalingURL))
            try probe.start(config: LastmileProbeConfig(probeUplink: false, expectedDownlinkBitrate: 500_000))
            let result = try await probe.result()
            #expect(result.uplinkReport == nil)
            #expect(result.downlinkReport?.state != .unavailable)
            #expect(result.state == result.downlinkReport?.state)
        }
    }

    @Test(arguments: [
        LastmileProbeConfig(expectedUplinkBitrate: 99_999), LastmileProbeConfig(expectedDownlinkBitrate: 5_000_001),
        LastmileProbeConfig(probeUplink: false, probeDownlink: false), LastmileProbeConfig(expectedUplinkBitrate: -1),
    ])
    func outOfRangeConfigurationIsACodedError(_ config: LastmileProbeConfig) {
        let probe = LastmileProbe(options: LastmileProbeOptions(accessToken: "unused"))
        #expect(throws: PreflightError.self) { try probe.start(config: config) }
        do throws(PreflightError) {
            try probe.start(config: config)
        } catch {
            #expect(error.code == .invalidProbeConfiguration)
        }
    }

    @Test func aProbeRunsOnce() async throws {
        try await LocalEdge.withRunning { edge in
            let probe = LastmileProbe(options: LastmileProbeOptions(accessToken: try await edge.token(), edgeURL: edge.signalingURL))
            try probe.start(config: LastmileProbeConfig(probeDownlink: false, expectedUplinkBitrate: 200_000))
            do throws(PreflightError) {
                try probe.start()
                Issue.record("a second start was accepted")
            } catch {
                #expect(error.code == .probeRefused)
            }
            _ = try await probe.result()
        }
    }

    @Test func stopEndsWithThePartialResultAndError31008() async throws {
        try await LocalEdge.withRunning { edge in
            let probe = LastmileProbe(options: LastmileProbeOptions(accessToken: try await edge.token(), edgeURL: edge.signalingURL))
            let events = probe.events()
            try probe.start()
            // Stopped once under way: at its first rating of a connected path.
            let underWay = await first(in: events) { event in
                if case .lastmileQuality(let quality) = event { return quality != .unknown }
                return false
            }
            #expect(underWay != nil, "no rating of a connected path")
            probe.stop()
            // The result throws the error that ended the probe; the partial result carries it too.
            let error = await #expect(throws: PreflightError.self) { try await probe.result() }
            #expect(error?.code == .cancelled)
            let result = try #require(probe.partialResult)
            #expect(result.error?.code == PreflightError.Code.cancelled.rawValue)
            #expect(result.edge == "local")
            // The uplink was under way or done; the downlink never finished.
            #expect(result.downlinkReport?.state != .complete)
            #expect(result.state != .complete)
        }
    }

    @Test func anUnreachableEdgeIsUnavailable() async throws {
        let probe = LastmileProbe(
            options: LastmileProbeOptions(accessToken: "x.y.z", edgeURL: "ws://127.0.0.1:9/signaling", signalingTimeout: .seconds(2)))
        try probe.start()
        let error = await #expect(throws: PreflightError.self) { try await probe.result() }
        #expect(error?.code == .signalingConnectionError)
        let result = try #require(probe.partialResult)
        #expect(result.state == .unavailable)
        #expect(result.error?.code == PreflightError.Code.signalingConnectionError.rawValue)
        #expect(result.uplinkReport?.state == .unavailable)
        #expect(result.downlinkReport?.state == .unavailable)
    }

    @Test func theDelegateAdaptsTheEvents() async throws {
        final class Recorder: LastmileProbeDelegate {
            let qualities = Mutex<[NetworkQuality]>([])
            let result = Mutex<LastmileProbeResult?>(nil)
            func lastmileQuality(_ quality: NetworkQuality) { qualities.withLock { $0.append(quality) } }
            func lastmileProbeResult(_ result: LastmileProbeResult) { self.result.withLock { $0 = result } }
        }
        try await LocalEdge.withRunning { edge in
            let recorder = Recorder()
            let probe = LastmileProbe(
                options: LastmileProbeOptions(accessToken: try await edge.token(), edgeURL: edge.signalingURL), delegate: recorder)
            try probe.start(config: LastmileProbeConfig(probeDownlink: false, expectedUplinkBitrate: 300_000))
            let result = try await probe.result()
            // The delegate's task sees the same events, a moment later.
            _ = await eventually { recorder.result.withLock { $0 } != nil }
            #expect(recorder.result.withLock { $0 } == result)
            #expect(recorder.qualities.withLock { $0 } == result.qualities.map(\.quality))
        }
    }
}

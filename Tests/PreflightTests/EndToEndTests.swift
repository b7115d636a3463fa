import Foundation
import Logging
import Preflight
import PreflightCore
import PreflightEdge
import PreflightTesting
import Synchronization
import Testing

/// Full test calls from the SDK to an in-process edge over loopback (ports bound to 0).
@Suite(.realTime, .serialized) struct EndToEndTests {
    @Test func echoTestCompletesWithAConsistentReport() async throws {
        try await LocalEdge.withRunning { edge in
            let token = try await edge.token(application: .echo)
            let test = PreflightTest.run(options: PreflightOptions(accessToken: token, edgeURL: edge.signalingURL, duration: .seconds(5)))
            #expect(test.status == .connecting)
            var sawConnected = false
            var samples: [StatsSample] = []
            var final: PreflightReport?
            for await event in test.events() {
                switch event {
                case .connected: sawConnected = true
                case .sample(let sample): samples.append(sample)
                case .completed(let report): final = report
                case .failed(let error, _): Issue.record("test failed: \(error)")
                case .qualityWarnings, .reconnected: break
                case .reconnecting(let error): Issue.record("reconnecting on loopback: \(error)")
                }
            }
            let report = try #require(final)
            #expect(sawConnected)
            #expect(test.status == .completed)
            ReportChecks.expectConsistent(report, samples: samples, expectedSeconds: 5)
            #expect(report.application == "echo")
            // No edge asked for: the example report's "roaming" (docs/protocol.md, "Roaming").
            #expect(report.selectedEdge == "roaming")
            #expect(test.callSid == report.callSid)
            #expect(test.report == report)
            #expect(try #require(test.endTime) >= test.startTime)
        }
    }

    /// An adaptive test on loopback (no loss, sub-millisecond RTT) ends as soon as its verdict
    /// settles, well before its maximum, and says so in the report; a fixed test has no such record.
    @Test func anAdaptiveTestEndsWhenItsVerdictSettles() async throws {
        try await LocalEdge.withRunning { edge in
            let token = try await edge.token(application: .echo)
            let test = PreflightTest.run(options: PreflightOptions(
                accessToken: token, edgeURL: edge.signalingURL, duration: .adaptive(maximum: .seconds(20))))
            var samples: [StatsSample] = []
            var final: PreflightReport?
            for await event in test.events() {
                switch event {
                case .sample(let sample): samples.append(sample)
                case .completed(let report): final = report
                case .failed(let error, _): Issue.record("test failed: \(error)")
                default: break
                }
            }
            let report = try #require(final)
            let settlement = try #require(report.verdictSettlement)
            #expect(settlement.settled)
            #expect(settlement.afterSeconds >= 2 && settlement.afterSeconds < 20)
            #expect(settlement.maximumSeconds == 20)
            #expect(abs(Double(samples.count) - settlement.afterSeconds) <= 1)
            #expect(report.callQuality == .excellent)
            #expect(settlement.meanMOSLower > 4.2 && settlement.meanMOSLower <= report.networkStats.mos.average)
            #expect(settlement.warningsUndecided.isEmpty && settlement.warningsRaised.isEmpty)
            #expect(settlement.roundTrips > 0 && settlement.roundTripsLost == 0)
            // The loss probes went and came back on the selected pair: their fates are evidence too.
            let probes = try #require(settlement.lossProbes)
            #expect(probes > 0 && settlement.lossProbesLost == 0)
            #expect(settlement.roundTrips + probes >= 100)
            // The record survives the report's JSON.
            let decoded = try JSONDecoder().decode(PreflightReport.self, from: try JSONEncoder().encode(report))
            #expect(decoded.verdictSettlement == settlement)
        }
    }

    /// The benchmark's mode: the test records when and on what its verdict settled, and goes on
    /// to its maximum, whose verdict the report carries.
    @Test func anAdaptiveTestThatContinuesAfterSettlingRunsToItsMaximum() async throws {
        try await LocalEdge.withRunning { edge in
            let token = try await edge.token(application: .echo)
            var options = PreflightOptions(accessToken: token, edgeURL: edge.signalingURL, duration: .adaptive(maximum: .seconds(6)))
            options.continuesAfterSettling = true
            let test = PreflightTest.run(options: options)
            let report = try await test.result()
            let settlement = try #require(report.verdictSettlement)
            #expect(settlement.settled && settlement.callQuality == .excellent)
            #expect(settlement.afterSeconds >= 2 && settlement.afterSeconds < 6)
            #expect(settlement.continuedToSeconds.map { $0 >= 5 } == true)
            #expect(report.statsSamples.count >= 6)
            #expect(report.callQuality == settlement.callQuality)
        }
    }

    @Test func anAdaptiveMaximumBelowTwoSecondsIs70005() async throws {
        let test = PreflightTest.run(options: PreflightOptions(
            accessToken: "x", edgeURL: "ws://127.0.0.1:9/signaling", duration: .adaptive(maximum: .seconds(1))))
        var failure: PreflightError?
        for await event in test.events() {
            if case .failed(let error, _) = event { failure = error }
        }
        #expect(failure?.code == .invalidArgument)
    }
}

/// Checks every field of a completed report against its samples and the definitions.
enum ReportChecks {
    static func expectConsistent(_ report: PreflightReport, samples: [StatsSample], expectedSeconds: Int) {
        #expect(report.callSid.hasPrefix("CA") && report.callSid.count == 34)
        #expect(report.edge == "local")
        #expect(report.selectedEdge == "roaming")
        #expect(report.statsSamples == samples)
        // One sample a second (±1 for the boundaries).
        #expect(abs(samples.count - expectedSeconds) <= 1, "got \(samples.count) samples for \(expectedSeconds) s")
        for metric in [report.networkStats.rtt, report.networkStats.jitter, report.networkStats.mos] {
            #expect(metric.min <= metric.average && metric.average <= metric.max)
        }
        #expect(report.callQuality == CallQuality(averageMOS: report.networkStats.mos.average))
        for sample in samples {
            #expect(abs(sample.mos - MeanOpinionScore.mos(rtt: sample.rtt, jitter: sample.jitter, packetLossPercent: sample.packetsLostFraction)) < 1e-9)
            #expect(sample.codec == "PCMU")
            #expect(sample.packetsSent > 0 && sample.bytesSent > sample.packetsSent * 160)
        }
        if let last = samples.last {
            // Loopback: everything sent came back, but for what was in flight when the last sample
            // was taken (50 packets a second over twice the largest round trip and half a second more (frames a stalled pacer sends late, at once)).
            let largestRTT = samples.map(\.rtt).max() ?? 0
            let inFlight = Int(((largestRTT / 1000 * 2 + 0.5) * 50).rounded(.up)) + 2
            #expect(last.packetsReceived + inFlight >= last.packetsSent, "\(last.packetsReceived) of \(last.packetsSent)")
            #expect(last.packetsLost == 0)
            // In milliseconds, measured: above zero, ordered (a busy host's delays are the lab's to
            // measure, not a test's).
            #expect(report.networkStats.rtt.min > 0 && report.networkStats.rtt.max >= report.networkStats.rtt.average)
            #expect(last.audioInputLevel >= 0 && last.audioInputLevel <= 32767)
        }
        // The speech-like signal's levels vary from second to second.
        #expect(Set(samples.map(\.audioInputLevel)).count > 1)
        #expect(Set(samples.map(\.audioOutputLevel)).count > 1)
        let timing = report.networkTiming
        #expect(timing.signaling != nil && timing.iceConnection != nil && timing.peerConnection != nil && timing.preflightTest != nil)
        if let signaling = timing.signaling, let ice = timing.iceConnection, let peer = timing.peerConnection, let whole = timing.preflightTest {
            #expect(signaling.duration >= 0 && ice.duration >= 0 && peer.duration >= 0)
            #expect(signaling.startTime == whole.startTime)
            #expect(ice.startTime >= signaling.endTime)
            #expect(peer.endTime >= ice.startTime)
            #expect(whole.duration >= Int64(expectedSeconds - 1) * 1000)
        }
        let pair = report.selectedIceCandidatePair
        #expect(pair?.localCandidate.isRemote == false)
        #expect(pair?.remoteCandidate.isRemote == true)
        #expect(pair?.remoteCandidate.candidateType == .host)
        #expect(report.isTurnRequired == false)
        #expect(report.iceCandidates.contains { !$0.isRemote } && report.iceCandidates.contains { $0.isRemote })
        #expect(report.uplink != nil && report.downlink != nil)
        #expect(report.error == nil)
    }
}

/// The delegate adapts the event stream: every callback arrives, in order.
@Suite struct DelegateTests {
    final class Recorder: PreflightTestDelegate {
        let calls = Mutex<[String]>([])
        let done = AsyncStream<Void>.makeStream()

        func preflightTestDidConnect(_ test: PreflightTest) { calls.withLock { $0.append("connected") } }
        func preflightTest(_ test: PreflightTest, didReceive sample: StatsSample) { calls.withLock { $0.append("sample") } }
        func preflightTest(_ test: PreflightTest, didCompleteWith report: PreflightReport) {
            calls.withLock { $0.append("completed") }
            done.continuation.finish()
        }
        func preflightTest(_ test: PreflightTest, didFailWithError error: PreflightError) {
            calls.withLock { $0.append("failed \(error.code)") }
            done.continuation.finish()
        }
    }

    @Test func delegateReceivesConnectSamplesAndCompletion() async throws {
        try await LocalEdge.withRunning { edge in
            let recorder = Recorder()
            let test = PreflightTest.run(
                options: PreflightOptions(accessToken: try await edge.token(), edgeURL: edge.signalingURL, duration: .seconds(2)),
                delegate: recorder)
            for await _ in recorder.done.stream {}
            let calls = recorder.calls.withLock { $0 }
            #expect(calls.first == "connected")
            #expect(calls.last == "completed")
            #expect(calls.filter { $0 == "sample" }.count == test.report.statsSamples.count)
            // A subscriber that arrives after the end still gets the result.
            #expect(try await test.result() == test.report)
        }
    }
}

import Foundation
@testable import Preflight
import PreflightCore
import PreflightEdge
import PreflightTesting
import Testing

/// Quality warnings in calls come from the same engine and per-second samples as the preflight
/// test, from the frames each party really receives; muting and hold suppress the audio-level
/// warnings they would otherwise raise ("Twilio Voice SDK: TVOCall", Insights).
@Suite(.realTime, .serialized) struct CallWarningTests {
    @Test func mutingSilencesTheOtherSideWithoutAnInputWarningAndHoldClearsTheOutputWarning() async throws {
        try await CallHarness.withEdge { harness in
            let call = try await harness.connectedCall()
            let (alice, callee, bob) = (call.caller, call.callee, call.bob)
            callee.setMuted(true)
            #expect(callee.isMuted)
            // Ten one-second samples of bob's silent frames: alice hears a constant level (0).
            #expect(await alice.wait { $0.callQualityWarnings.contains(.constantAudioOutputLevel) }, "\(alice.callQualityWarnings)")
            #expect(alice.latestSample?.audioOutputLevel == 0)
            // Bob sends a constant level too (silence), but he is muted: no input warning.
            #expect(!callee.callQualityWarnings.contains(.constantAudioInputLevel))
            #expect(callee.latestSample?.audioInputLevel == 0)
            // Speech-like audio reaches bob: no output warning on his side.
            #expect(!callee.callQualityWarnings.contains(.constantAudioOutputLevel))
            // On hold, alice's output warning clears at the next sample and is not raised again.
            alice.setOnHold(true)
            #expect(alice.isOnHold)
            #expect(await alice.wait { !$0.callQualityWarnings.contains(.constantAudioOutputLevel) }, "\(alice.callQualityWarnings)")
            for _ in 0..<2 {
                #expect(await alice.sample { _ in true } != nil, "no sample")
                #expect(!alice.callQualityWarnings.contains(.constantAudioOutputLevel))
            }
            alice.disconnect()
            #expect(await callee.endingError() == nil)
            // The edge has both Insights events of the warning, in their group, with the
            // values and threshold of the raise.
            let callSid = try #require(alice.sid)
            var events: [CallInsightsTests.EventsBody.Event] = []
            #expect(try await eventually {
                events = try await CallInsightsTests.events(harness, callSid: callSid).body?.events ?? []
                return events.contains { $0.party == "caller" && $0.group == "audio-level-warning-cleared" }
            }, "\(events.map { "\($0.party) \($0.group) \($0.name)" })")
            let raised = events.filter { $0.party == "caller" && $0.group == "audio-level-warning-raised" }
            let cleared = events.filter { $0.party == "caller" && $0.group == "audio-level-warning-cleared" }
            #expect(raised.map(\.name) == ["constant-audio-output-level"])
            #expect(cleared.map(\.name) == ["constant-audio-output-level"])
            #expect(raised.first?.payload["threshold"] != nil && raised.first?.payload["values"] != nil)
            #expect((raised.first?.timestamp ?? .max) <= (cleared.first?.timestamp ?? 0))
            // Muted, bob raised no input warning.
            #expect(!events.contains { $0.name == "constant-audio-input-level" })
            await bob.unregister()
        }
    }

    @Test func muteAndHoldOnlyTakeEffectWhileConnected() async throws {
        try await CallHarness.withEdge { harness in
            let bob = try await harness.register("bob")
            let invites = bob.events()
            let alice = try await harness.connect(to: "client:bob", answerOnBridge: true)
            _ = try #require(await next(invites)?.invite)
            #expect(await alice.wait(for: .ringing))
            // Applied at once to the call's state machine, which ignores both while ringing.
            alice.setMuted(true)
            alice.setOnHold(true)
            #expect(!alice.isMuted)
            #expect(!alice.isOnHold)
            alice.disconnect()
            await alice.endingError()
            alice.setMuted(true)
            #expect(!alice.isMuted)
            await bob.unregister()
        }
    }
}

/// The groups a call posts its warnings in: the audio-level ones reach the edge in
/// ``CallWarningTests``; the network-quality ones, which loopback does not raise, go through the
/// same path from these events.
@Suite struct CallWarningInsightsTests {
    @Test func networkWarningsGoInTheNetworkQualityGroups() throws {
        var engine = WarningsEngine()
        var events: [InsightsEvent] = []
        // Three of five RTT samples over 400 ms raise high-rtt; five under it clear it.
        for (index, rtt) in [500.0, 500, 500, 50, 50, 50, 50, 50].enumerated() {
            let sample = StatsSample(
                timestamp: 1_731_699_120_000 + Double(index) * 1000, rtt: rtt, jitter: 1, mos: 4.4, packetsLostFraction: 0,
                audioInputLevel: index % 2 == 0 ? 2000 : 0, audioOutputLevel: index % 2 == 0 ? 2000 : 0)
            events += CallRun.insights(of: engine.ingest(sample))
        }
        let raised = try #require(events.first { $0.name == "high-rtt" })
        #expect(raised.group == "network-quality-warning-raised")
        #expect(raised.payload["threshold"] != nil)
        #expect(raised.payload["values"] != nil)
        #expect(events.map(\.group) == ["network-quality-warning-raised", "network-quality-warning-cleared"])
        #expect(events.map(\.name) == ["high-rtt", "high-rtt"])
    }

    @Test func audioLevelWarningsGoInTheAudioLevelGroups() {
        var engine = WarningsEngine()
        var events: [InsightsEvent] = []
        // Ten constant output levels raise constant-audio-output-level; a varying one then clears it.
        for index in 0..<12 {
            let sample = StatsSample(
                timestamp: 1_731_699_120_000 + Double(index) * 1000, rtt: 50, jitter: 1, mos: 4.4, packetsLostFraction: 0,
                audioInputLevel: index % 2 == 0 ? 2000 : 0, audioOutputLevel: index < 10 ? 100 : (index % 2 == 0 ? 30000 : 0))
            events += CallRun.insights(of: engine.ingest(sample))
        }
        #expect(events.map(\.group) == ["audio-level-warning-raised", "audio-level-warning-cleared"])
        #expect(events.map(\.name) == ["constant-audio-output-level", "constant-audio-output-level"])
    }
}

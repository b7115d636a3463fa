import Foundation
import Preflight
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

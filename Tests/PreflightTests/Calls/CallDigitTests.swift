import Foundation
import Preflight
import PreflightEdge
import PreflightTesting
import Synchronization
import Testing

/// sendDigits: RFC 4733 telephone events in the audio stream, through the edge's bridge (over
/// SRTP), received by the other party as digits, in order. (The schedule's timing, the `w`
/// pauses included, is checked sans-IO in DTMFSenderTests, not against a clock here.)
@Suite(.realTime, .serialized) struct CallDigitTests {
    @Test func digitsReachTheOtherPartyInOrderWithTheirPauses() async throws {
        try await CallHarness.withEdge { harness in
            let call = try await harness.connectedCall()
            let (alice, callee, bob) = (call.caller, call.callee, call.bob)
            #expect(alice.isMediaEncrypted)
            let events = callee.events()
            let received = Mutex<[Character]>([])
            let listener = Task {
                for await event in events {
                    if case .digitReceived(let digit) = event {
                        let count = received.withLock { $0.append(digit); return $0.count }
                        if count == 4 { return }
                    }
                }
            }
            try alice.sendDigits("12w#*")
            _ = await eventually { received.withLock { $0.count } >= 4 }
            listener.cancel()
            let digits = received.withLock { $0 }
            #expect(String(digits) == "12#*")
            // The audio went on around the digits: no loss counted for the event packets.
            #expect(callee.getStats()?.remoteAudioTrackStats.first?.packetsLost == 0)
            alice.disconnect()
            #expect(await callee.endingError() == nil)
            await bob.unregister()
        }
    }

    @Test func digitsOutsideTheSetAreRefusedAndNothingPlaysUnlessConnected() async throws {
        try await CallHarness.withEdge { harness in
            let bob = try await harness.register("bob")
            let invites = bob.events()
            let alice = try await harness.connect(to: "client:bob", answerOnBridge: true)
            _ = try #require(await next(invites)?.invite)
            #expect(await alice.wait(for: .ringing))
            let error = #expect(throws: PreflightError.self) { try alice.sendDigits("12a") }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains("\"a\"") == true)
            #expect(throws: PreflightError.self) { try alice.sendDigits(String(repeating: "1", count: 257)) }
            // Valid, but ringing: no effect, no error.
            try alice.sendDigits("1")
            alice.disconnect()
            await bob.unregister()
        }
    }
}

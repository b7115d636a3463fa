import Foundation
import Preflight
import PreflightEdge
import PreflightTesting
import Testing

/// The edge's invite limit as the SDK sees it: a call it refuses fails to connect with 70108,
/// like a call to a busy callee fails with 31486.
@Suite(.realTime, .serialized) struct CallLimitTests {
    @Test func aCallOverTheCallersInviteRateFailsWithItsCode() async throws {
        // A caller's bucket that refills once in 100 s: the test holds on a slow machine too.
        try await CallHarness.withEdge(["--invite-rate", "0.01"]) { harness in
            // The caller's burst (10) of invites that ring nobody, then one more.
            for _ in 0..<10 {
                #expect(try await harness.connect(to: "client:nobody").endingError()?.code == .calleeUnavailable)
            }
            let recorder = CallbackRecorder()
            let call = try await harness.connect(to: "client:nobody", delegate: recorder)
            let error = await call.endingError()
            await recorder.wait(for: 1)
            #expect(error?.code == .inviteRateLimited, "\(String(describing: error))")
            #expect(recorder.callbacks == ["didFailToConnectWithError"])
            #expect(call.states == [.connecting, .disconnected])
            // Another caller is not held back.
            #expect(try await harness.connect(from: "carol", to: "client:nobody").endingError()?.code == .calleeUnavailable)
        }
    }
}

import PreflightCore
import PreflightNIO
import PreflightTesting
import Testing

/// Cancelling a media send while its frames are paced: the cancellation handler runs under the
/// runtime's lock of the sending task while the pacer's loop, firing a frame, may resume that
/// task. A handler that cancelled the pending frame itself (under NIO's lock) deadlocked the two
/// now and then (a test's `stop()` froze the whole suite once in CI; the stack showed both
/// threads). The window is microseconds wide and this test did not hit it with the old handler
/// in three runs here: it guards that cancellations at many moments of the pacing all return.
@Suite(.realTime, .timeLimit(.minutes(2))) struct MediaSendCancellationTests {
    @Test func cancellingASendAtAnyMomentReturns() async {
        let session = MediaSession(
            configuration: MediaSessionConfiguration(cname: "cancel-test"), origin: .now, wallClockOrigin: 0, transmit: { _ in true })
        var returned = 0
        for round in 0..<400 {
            let sending = Task { await session.send(AudioTestSource()) }
            // Within the first frames: the pacer is arming and firing its callbacks.
            try? await Task.sleep(for: .microseconds(round % 7 * 300))
            sending.cancel()
            _ = await sending.result
            returned += 1
        }
        #expect(returned == 400)
    }
}

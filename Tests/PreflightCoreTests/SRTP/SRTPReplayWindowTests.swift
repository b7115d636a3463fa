@testable import PreflightCore
import Testing

/// The RFC 3711 §3.3.2 window at its edges.
@Suite struct SRTPReplayWindowTests {
    @Test func acceptsNewIndexesOnce() {
        var window = SRTPReplayWindow()
        #expect(window.refusal(of: 1000) == nil)
        window.accept(1000)
        #expect(window.refusal(of: 1000) != nil)
        #expect(window.refusal(of: 1001) == nil)
        // The oldest index the window still covers, and the first it does not.
        #expect(window.refusal(of: 1000 - 63) == nil)
        #expect(window.refusal(of: 1000 - 64) != nil)
        window.accept(1000 - 63)
        #expect(window.refusal(of: 1000 - 63) != nil)
        #expect(window.highest == 1000)
    }

    @Test(arguments: [1, 63, 64, 65, 1_000_000] as [UInt64])
    func slidesForward(by shift: UInt64) {
        var window = SRTPReplayWindow()
        window.accept(500)
        window.accept(499)
        window.accept(500 + shift)
        #expect(window.highest == 500 + shift)
        #expect(window.refusal(of: 500 + shift) != nil)
        // 500 and 499 stay refused: remembered within the window, too old beyond it.
        #expect(window.refusal(of: 500) != nil)
        #expect(window.refusal(of: 499) != nil)
        // 498 was never received: new while the window still covers it.
        #expect((window.refusal(of: 498) == nil) == (shift + 2 < SRTPReplayWindow.size))
    }

    @Test func startsAtZero() {
        var window = SRTPReplayWindow()
        window.accept(0)
        #expect(window.refusal(of: 0) != nil)
        #expect(window.refusal(of: 1) == nil)
    }
}

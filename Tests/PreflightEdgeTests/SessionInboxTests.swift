import PreflightCore
import Testing

@testable import PreflightEdge

/// The session queue's hold on a client that is ahead of its session loop: the reader waits for
/// a place instead of ending the session, and nothing it sent is lost or reordered.
@Suite struct SessionInboxTests {
    /// A client event named `name` (a malformed message carries its text through the queue).
    static func client(_ name: String) -> SignalingSession.Event {
        .malformed(PreflightError(code: .malformed, message: name))
    }

    static func name(_ event: SignalingSession.Event?) -> String {
        switch event {
        case .malformed(let error): error.message
        case .timer(let generation): "timer \(generation)"
        default: "other"
        }
    }

    /// A queue the loop is ``SignalingSession/inboundBuffer`` client events behind (c0, c1, …),
    /// and a reader delivering one more ("late").
    static func fullWithALateReader() async -> (SessionInbox, Task<Bool, Never>) {
        let inbox = SessionInbox()
        for index in 0..<SignalingSession.inboundBuffer {
            #expect(await inbox.deliverFromClient(client("c\(index)")))
        }
        return (inbox, Task { await inbox.deliverFromClient(client("late")) })
    }

    @Test func aClientEventBeyondTheBufferWaitsUntilTheLoopTakesOne() async {
        let (inbox, late) = await Self.fullWithALateReader()
        // The edge's own events never wait: this one goes ahead of the held client event.
        inbox.post(.timer(generation: 7))
        var events = inbox.events.makeAsyncIterator()
        var taken: [String] = []
        for _ in 0...SignalingSession.inboundBuffer { taken.append(Self.name(await events.next())) }
        #expect(taken == (0..<SignalingSession.inboundBuffer).map { "c\($0)" } + ["timer 7"])
        inbox.took(Self.client("c0"))
        #expect(await late.value)
        #expect(Self.name(await events.next()) == "late")
    }

    @Test func finishingTheQueueLetsAWaitingReaderGo() async {
        let (inbox, late) = await Self.fullWithALateReader()
        inbox.finish()
        #expect(await late.value == false)
        #expect(await inbox.deliverFromClient(Self.client("after")) == false)
    }

    @Test func aCancelledReaderIsLetGoAndTheQueueStaysOpen() async {
        let (inbox, late) = await Self.fullWithALateReader()
        late.cancel()
        #expect(await late.value == false)
        // The next connection of the session (a resume) still gets places as the loop frees them.
        inbox.took(Self.client("c0"))
        #expect(await inbox.deliverFromClient(Self.client("resumed")))
        var events = inbox.events.makeAsyncIterator()
        var taken: [String] = []
        for _ in 0...SignalingSession.inboundBuffer { taken.append(Self.name(await events.next())) }
        #expect(taken == (0..<SignalingSession.inboundBuffer).map { "c\($0)" } + ["resumed"])
    }
}

import Synchronization

/// The queue of one signaling session: what its client sent (from the connection's reader) and
/// what happened elsewhere (its timers, the other party of its call). One loop takes the events
/// in order, so the session's state has a single owner.
///
/// The queue itself is unbounded, but what the client may put in it is not: the reader counts
/// the client's events the loop has not taken yet, and a client more than
/// ``SignalingSession/inboundBuffer`` ahead is flooding (its session ends). Events from the edge
/// itself are few per call and never refused, so none is lost to a busy client.
final class SessionInbox: Sendable {
    let continuation: AsyncStream<SignalingSession.Event>.Continuation
    let events: AsyncStream<SignalingSession.Event>
    private let pending = Atomic(0)

    init() {
        (events, continuation) = AsyncStream<SignalingSession.Event>.makeStream()
    }

    /// Queues an event of the edge's own (a timer, the call's other party).
    func post(_ event: SignalingSession.Event) {
        continuation.yield(event)
    }

    /// Queues an event from the client.
    /// - Returns: `false` when the client is too far ahead (nothing is queued; end the session).
    func deliverFromClient(_ event: SignalingSession.Event) -> Bool {
        let ahead = pending.add(1, ordering: .acquiringAndReleasing).newValue
        guard ahead <= SignalingSession.inboundBuffer else {
            pending.subtract(1, ordering: .relaxed)
            return false
        }
        if case .dropped = continuation.yield(event) { return false }
        return true
    }

    /// The loop took an event; one from the client frees a place.
    func took(_ event: SignalingSession.Event) {
        if event.isFromClient { pending.subtract(1, ordering: .acquiringAndReleasing) }
    }

    /// Ends the queue: the loop sees no more events after those queued.
    func finish() {
        continuation.finish()
    }
}

import Synchronization

/// The queue of one signaling session: what its client sent (from the connection's reader) and
/// what happened elsewhere (its timers, the other party of its call). One loop takes the events
/// in order, so the session's state has a single owner.
///
/// The queue itself is unbounded, but what the client may put in it is not: the reader counts
/// the client's events the loop has not taken yet, and waits while it is
/// ``SignalingSession/inboundBuffer`` ahead. It then reads nothing more from the connection, so
/// TCP's flow control holds the client back: a burst is delayed, never refused, and a flood
/// costs the edge no memory. Events from the edge itself are few per call and never wait, so
/// none is lost to a busy client.
final class SessionInbox: Sendable {
    let continuation: AsyncStream<SignalingSession.Event>.Continuation
    let events: AsyncStream<SignalingSession.Event>
    private let space = Mutex(Space())

    /// The client's places in the queue.
    private struct Space {
        /// Client events queued and not taken yet.
        var pending = 0
        /// The reader, waiting for a place.
        var waiter: CheckedContinuation<Bool, Never>?
        /// The queue has ended: no more places.
        var closed = false
    }

    init() {
        (events, continuation) = AsyncStream<SignalingSession.Event>.makeStream()
    }

    /// An ended queue: a reader pointed at it delivers nothing more (a connection whose session
    /// another one took over).
    static let detached: SessionInbox = {
        let inbox = SessionInbox()
        inbox.finish()
        return inbox
    }()

    /// Queues an event of the edge's own (a timer, the call's other party).
    func post(_ event: SignalingSession.Event) {
        continuation.yield(event)
    }

    /// Queues an event from the client, first waiting while the loop is
    /// ``SignalingSession/inboundBuffer`` events behind. One reader calls it at a time.
    /// - Returns: `false` when the queue ended (or the reader was cancelled) first: the event is
    ///   not queued.
    func deliverFromClient(_ event: SignalingSession.Event) async -> Bool {
        let placed = await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Bool, Never>) in
                let now: Bool? = space.withLock { space in
                    // Checked under the lock the cancellation handler takes: a reader cancelled
                    // just before it waits is not left waiting.
                    if space.closed || Task.isCancelled { return false }
                    if space.pending < SignalingSession.inboundBuffer {
                        space.pending += 1
                        return true
                    }
                    space.waiter = waiter
                    return nil
                }
                if let now { waiter.resume(returning: now) }
            }
        } onCancel: {
            // Only the waiting reader is let go: the queue stays open for the session's next
            // connection (a `resume`).
            wake(closing: false)
        }
        guard placed else { return false }
        switch continuation.yield(event) {
        case .enqueued: return true
        case .dropped, .terminated: return false
        @unknown default: return false
        }
    }

    /// The loop took an event; one from the client frees a place (the waiting reader's, if any).
    func took(_ event: SignalingSession.Event) {
        guard event.isFromClient else { return }
        let waiter = space.withLock { space in
            guard let waiter = space.waiter else {
                space.pending -= 1
                return nil as CheckedContinuation<Bool, Never>?
            }
            // The place goes straight to the waiting reader: `pending` stays as it is.
            space.waiter = nil
            return waiter
        }
        waiter?.resume(returning: true)
    }

    /// Ends the queue: the loop sees no more events after those queued, and a reader waiting
    /// for a place is told the queue ended.
    func finish() {
        wake(closing: true)
        continuation.finish()
    }

    /// Tells a waiting reader it gets no place; with `closing`, no reader gets one any more.
    private func wake(closing: Bool) {
        let waiter = space.withLock { space in
            if closing { space.closed = true }
            defer { space.waiter = nil }
            return space.waiter
        }
        waiter?.resume(returning: false)
    }
}

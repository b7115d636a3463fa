import NIOCore
import PreflightCore
import Synchronization

/// Paces a ``MediaSource``'s frames for a ``MediaSession`` on its event loop: one scheduled
/// callback for the next frame's absolute deadline, which sends the frame and schedules the next
/// (NIO's `scheduleCallback`, the pacer itself the handler: no promise or closure a frame).
/// Nothing sleeps in a task, and packets are written from the socket's own loop. Not generic:
/// the source is an existential, so that the pacer is compiled once, specialized, instead of
/// running as unspecialized generic code (a metadata lookup a frame) for another module's source.
final class FramePacer: NIOScheduledCallbackHandler, Sendable {
    let session: MediaSession
    let state: Mutex<State>

    struct State: Sendable {
        var source: any MediaSource
        var sequence: UInt16
        var timestamp: UInt32
        var due: ContinuousClock.Instant?
        var next: NIOScheduledCallback?
        var finished: CheckedContinuation<Void, Never>?
        var stopped = false
    }

    init(session: MediaSession, source: any MediaSource) {
        self.session = session
        state = Mutex(State(source: source, sequence: session.configuration.firstSequence, timestamp: session.configuration.firstTimestamp))
    }

    /// Sends until the source ends, the session stops sending, or ``stop()``.
    func run() async {
        await withCheckedContinuation { continuation in
            let stopped = state.withLock { state in
                state.finished = continuation
                return state.stopped
            }
            if stopped {
                finish()
            } else {
                session.eventLoop.execute { self.fire() }
            }
        }
    }

    /// Ends the pacing: ``run()`` returns.
    func stop() {
        let next = state.withLock { state in
            state.stopped = true
            return state.next
        }
        next?.cancel()
        finish()
    }

    /// The frame's deadline came (or the first frame is due at once): send it, arm the next.
    private func fire() {
        let now = ContinuousClock.now
        let outcome = state.withLock { state -> Duration? in
            guard !state.stopped, session.isSending, let frame = state.source.nextFrame() else {
                state.stopped = true
                return nil
            }
            session.send(frame, payloadType: state.source.payloadType, sequence: &state.sequence, timestamp: &state.timestamp, at: now)
            let due = (state.due ?? now) + frame.interval
            state.due = due
            return due - now
        }
        guard let delay = outcome else {
            finish()
            return
        }
        let nanoseconds = Int64(min(max(0, delay / .nanoseconds(1)), 8.64e13))
        guard let next = try? session.eventLoop.scheduleCallback(in: .nanoseconds(nanoseconds), handler: self) else {
            // The loop is shutting down: nothing more is sent.
            state.withLock { $0.stopped = true }
            finish()
            return
        }
        let stopped = state.withLock { state in
            state.next = next
            return state.stopped
        }
        if stopped { next.cancel() }
    }

    func handleScheduledCallback(eventLoop: some EventLoop) {
        fire()
    }

    /// Cancelled by ``stop()`` or by the loop shutting down with the frame pending: either way the
    /// pacing ends and ``run()`` returns.
    func didCancelScheduledCallback(eventLoop: some EventLoop) {
        state.withLock { $0.stopped = true }
        finish()
    }

    private func finish() {
        state.withLock { state in
            defer { state.finished = nil }
            return state.finished
        }?.resume()
    }
}

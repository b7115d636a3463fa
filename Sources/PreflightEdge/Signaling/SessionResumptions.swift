import HummingbirdWebSocket
import Synchronization

/// Signaling sessions whose connection was lost without a hangup, each waiting for its client to
/// continue it on a new connection (docs/protocol.md, "Resuming a session").
///
/// A parked session is found by its id and proven by its resume token (compared in constant
/// time); it can be resumed once. A session whose connection the edge still holds is taken over
/// by the same proof: a client that left a network drops its connection there, and the edge
/// may never see that connection end (its packets have no way back), so the session parks at
/// once (``SignalingSession/Event/takenOver``) and the new connection resumes it; the old
/// connection's reader feeds it no more. Every refusal is the same, so a guess learns nothing.
/// The registry holds at most one entry per admitted session, so the edge's session limits
/// bound it.
final class SessionResumptions: Sendable {
    /// What the resuming connection gives the parked session.
    struct Attachment: Sendable {
        /// Where the session now writes.
        let outbound: WebSocketOutboundWriter
        /// Finished by the session when it ends, so that the resuming connection closes.
        let ended: AsyncStream<Never>.Continuation
        /// The resuming connection's reader (detached from the session when another connection
        /// takes it over).
        let reader: SignalingSession.ReaderState
    }

    /// A session attached to a connection, which a resume with its token takes over.
    private struct Live: Sendable {
        let token: [UInt8]
        let events: SessionInbox
    }

    /// How long a resume that took over a live session waits for it to park.
    static let takeoverWait: Duration = .seconds(2)

    private struct Parked: Sendable {
        let token: [UInt8]
        let events: SessionInbox
        let waiter: CheckedContinuation<Attachment?, Never>
    }

    private let parked = Mutex<[String: Parked]>([:])
    private let live = Mutex<[String: Live]>([:])
    /// Resumes waiting for a session they took over to park.
    private let arrivals = Mutex<[String: CheckedContinuation<Void, Never>]>([:])

    /// Session `sessionId` is attached to a connection with resume token `token` (after its
    /// `welcome` and each `resumed`).
    func attach(sessionId: String, token: String, events: SessionInbox) {
        guard !token.isEmpty else { return }
        live.withLock { $0[sessionId] = Live(token: Array(token.utf8), events: events) }
    }

    /// Session `sessionId` parked or ended: nothing to take over.
    func detach(sessionId: String) {
        live.withLock { _ = $0.removeValue(forKey: sessionId) }
    }

    /// Sessions parked now.
    var count: Int { parked.withLock { $0.count } }

    /// Parks a session until a connection resumes it, `deadline` passes, or the task is cancelled.
    /// - Returns: the new connection's attachment, or `nil` when none came in time.
    func park(
        sessionId: String, token: String, events: SessionInbox,
        until deadline: ContinuousClock.Instant
    ) async -> Attachment? {
        let timer = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            self.expire(sessionId)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Attachment?, Never>) in
                // Checked under the lock: a timer or a cancellation that came first is not lost.
                let registered = parked.withLock { parked -> Parked? in
                    guard !Task.isCancelled, ContinuousClock.now < deadline else { return nil }
                    let entry = Parked(token: Array(token.utf8), events: events, waiter: waiter)
                    parked[sessionId]?.waiter.resume(returning: nil)
                    parked[sessionId] = entry
                    // Parked, no longer attached: at no moment is it neither.
                    self.live.withLock { _ = $0.removeValue(forKey: sessionId) }
                    return entry
                }
                if registered == nil { waiter.resume(returning: nil) }
                self.arrivals.withLock { $0.removeValue(forKey: sessionId) }?.resume()
            }
        } onCancel: {
            self.expire(sessionId)
        }
    }

    /// Resumes parked session `sessionId` on a new connection when `token` is its resume token:
    /// `redirect` gets the session's event queue (the new connection's reader feeds it from now
    /// on) before the session wakes, so nothing the client sends after `resume` is lost.
    /// - Returns: whether it was resumed; `false` (refused) when no parked session has that id
    ///   and token.
    func resume(
        sessionId: String, token: String, attachment: Attachment,
        redirect: (SessionInbox) -> Void
    ) async -> Bool {
        if claim(sessionId: sessionId, token: token, attachment: attachment, redirect: redirect) { return true }
        // Not parked: a live session with this token is taken over. It parks at once.
        guard let taken = live.withLock({ Self.take(sessionId, proven: token, from: &$0, token: \.token) }) else { return false }
        await withCheckedContinuation { (arrival: CheckedContinuation<Void, Never>) in
            arrivals.withLock { $0[sessionId] = arrival }
            taken.events.post(.takenOver(token: token))
            Task {
                try? await Task.sleep(for: Self.takeoverWait)
                self.arrivals.withLock { $0.removeValue(forKey: sessionId) }?.resume()
            }
        }
        return claim(sessionId: sessionId, token: token, attachment: attachment, redirect: redirect)
    }

    /// Claims parked session `sessionId` for `attachment` when `token` is its resume token.
    private func claim(
        sessionId: String, token: String, attachment: Attachment,
        redirect: (SessionInbox) -> Void
    ) -> Bool {
        guard let claimed = parked.withLock({ Self.take(sessionId, proven: token, from: &$0, token: \.token) }) else { return false }
        redirect(claimed.events)
        claimed.waiter.resume(returning: attachment)
        return true
    }

    /// Removes and returns `table`'s entry for `sessionId` when `proven` is its token (compared
    /// in constant time).
    private static func take<Entry>(
        _ sessionId: String, proven: String, from table: inout [String: Entry], token: KeyPath<Entry, [UInt8]>
    ) -> Entry? {
        guard let entry = table[sessionId], APIKeyAuthorization.constantTimeEquals(entry[keyPath: token], Array(proven.utf8)) else {
            return nil
        }
        table.removeValue(forKey: sessionId)
        return entry
    }

    private func expire(_ sessionId: String) {
        parked.withLock { $0.removeValue(forKey: sessionId) }?.waiter.resume(returning: nil)
    }
}

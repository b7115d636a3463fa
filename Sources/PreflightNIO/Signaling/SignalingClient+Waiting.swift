import PreflightCore
import Synchronization

extension SignalingClient {
    /// A message for a waiting request goes to it; the rest to ``events``. An error message fails
    /// the waiting request (the edge answered it with an error) and goes to ``events`` too, so
    /// that a reader of ``events`` sees the edge's error before the close that follows it.
    func route(_ message: SignalingMessage) {
        switch message {
        case .welcome:
            if resolve(.welcome, .success(message)) { return }
            keepEarly(.welcome, message)
            return
        case .answer:
            if resolve(.answer, .success(message)) { return }
            // Kept for an `invite(_:)` about to wait, and told to a reader of the events that
            // places calls without waiting.
            keepEarly(.answer, message)
        case .resumed(let body):
            if let token = body.resumeToken {
                state.withLock { $0.resume?.resumeToken = token }
            }
            if resolve(.resumed, .success(message)) { return }
            keepEarly(.resumed, message)
            return
        case .registered:
            if resolve(.registered, .success(message)) { return }
            // Kept for a `register()` about to wait, and told to a reader of the events that
            // registers without waiting.
            keepEarly(.registered, message)
        case .error(let info):
            let error = info.preflightError
            let claimed = resolve(.resumed, .failure(error)) || resolve(.welcome, .failure(error)) || resolve(.answer, .failure(error))
                || resolve(.registered, .failure(error))
            state.withLock { state in
                if !claimed { state.refusal = error }
                // The edge ends the session as it drains: nothing here is left to resume, and
                // the client goes to another edge at once instead of retrying this one.
                if info.callSid == nil, error.code == .edgeDraining { state.resume = nil }
            }
        default:
            break
        }
        eventContinuation.yield(.message(message))
    }

    /// Keeps a response no request waits for yet (it comes only in answer to this client's own
    /// requests): the wait that follows takes it.
    private func keepEarly(_ awaited: Awaited, _ message: SignalingMessage) {
        state.withLock { $0.early[awaited] = message }
    }

    /// Resumes the request waiting for `awaited`; `false` when none waits.
    @discardableResult
    func resolve(_ awaited: Awaited, _ result: Result<SignalingMessage?, PreflightError>) -> Bool {
        guard let waiter = state.withLock({ $0.waiters.removeValue(forKey: awaited) }) else { return false }
        waiter.resume(returning: result)
        return true
    }

    /// Waits for `awaited` until `deadline`, a cancellation or the end of the connection.
    func wait(for awaited: Awaited, until deadline: ContinuousClock.Instant) async throws(PreflightError) -> SignalingMessage? {
        let timeout = PreflightError(
            code: .signalingTimeout, message: "signaling: no answer from \(configuration.url) within \(configuration.timeout)")
        let timer = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            if !Task.isCancelled { self.resolve(awaited, .failure(timeout)) }
        }
        defer { timer.cancel() }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: Waiter) in
                // Everything that could have ended the wait before it was registered (a timer,
                // a cancellation, the end of the session) is checked under the same lock.
                let immediate = state.withLock { state -> Result<SignalingMessage?, PreflightError>? in
                    if Task.isCancelled {
                        return .failure(PreflightError(code: .cancelled, message: "signaling: cancelled"))
                    }
                    if let early = state.early.removeValue(forKey: awaited) { return .success(early) }
                    if awaited != .open, let refusal = state.refusal { return .failure(refusal) }
                    if case .some(let error) = state.ended {
                        return .failure(error ?? PreflightError(code: .signalingDisconnected, message: "signaling: the connection was closed"))
                    }
                    if awaited == .open, state.isOpen { return .success(nil) }
                    if ContinuousClock.now >= deadline { return .failure(timeout) }
                    if state.waiters[awaited] != nil {
                        return .failure(PreflightError(code: .invalidArgument, message: "signaling: a request of this kind is already waiting"))
                    }
                    state.waiters[awaited] = waiter
                    return nil
                }
                if let immediate { waiter.resume(returning: immediate) }
            }
        } onCancel: {
            // A waiter registered before the cancellation is resumed here; one registering after
            // it sees `Task.isCancelled` under the lock.
            resolve(awaited, .failure(PreflightError(code: .cancelled, message: "signaling: cancelled")))
        }
        return try result.get()
    }
}

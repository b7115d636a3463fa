import Logging
import PreflightCore
import Synchronization

extension SignalingClient {
    /// Connects and routes the edge's messages until the session ends; resumes it on a new
    /// connection when the connection is lost and ``SignalingClientConfiguration/resumesSession``.
    public func run() async {
        var resumeDeadline: ContinuousClock.Instant?
        var lost: PreflightError?
        var attempt = 0
        while true {
            let current = connection.withLock { $0 }
            let handshake = resumeDeadline.map { deadline in Task { await self.resume(on: current, until: deadline) } }
            var failure = await pump(current)
            if let handshake {
                // The connection is over: a handshake still waiting on it (for it to open, or for
                // `resumed`) has nothing left to wait for. Left alone it waited out the resume
                // deadline, 31 s after a failed call had closed the client.
                handshake.cancel()
                if let refusal = await handshake.value {
                    // The handshake closed the connection: its error is why.
                    failure = refusal
                } else {
                    // Resumed; the connection then served the session until it was lost.
                    resumeDeadline = nil
                    lost = nil
                    attempt = 0
                }
            }
            let (closing, resume) = state.withLock { ($0.closing, $0.resume) }
            guard let failure, !closing, configuration.resumesSession, let resume else {
                finish(failure.map { lost ?? $0 })
                return
            }
            if failure.code == .sessionResumeRefused {
                finish(failure)
                return
            }
            if resumeDeadline == nil {
                // The session's connection was just lost: start resuming.
                lost = failure
                resumeDeadline = .now + configuration.resumeTimeout
                logger.info("signaling connection lost; resuming the session", metadata: ["sessionId": "\(resume.sessionId)"])
                eventContinuation.yield(.reconnecting(failure))
            }
            guard let deadline = resumeDeadline, ContinuousClock.now < deadline else {
                finish(lost ?? failure)
                return
            }
            // 0, 0.25, 0.5, 1, 2, 2 … s between attempts.
            let pause = attempt == 0 ? Duration.zero : .milliseconds(250) * (1 << min(attempt - 1, 3))
            attempt += 1
            try? await Task.sleep(for: pause)
            if Task.isCancelled || state.withLock({ $0.closing }) {
                finish(lost ?? failure)
                return
            }
            connection.withLock { $0 = Self.makeConnection(configuration, logger: logger) }
        }
    }

    /// Runs one connection and routes its events until it closes; returns why (`nil`: closed by us).
    func pump(_ connection: SignalingConnection) async -> PreflightError? {
        await withDiscardingTaskGroup(returning: PreflightError?.self) { group in
            group.addTask { await connection.run() }
            for await event in connection.events {
                switch event {
                case .connected:
                    state.withLock { $0.isOpen = true }
                    resolve(.open, .success(nil))
                case .message(let message):
                    route(message)
                case .closed(let error):
                    let waiters = state.withLock { state in
                        state.isOpen = false
                        defer { state.waiters.removeAll() }
                        return Array(state.waiters.values)
                    }
                    let failure = error ?? PreflightError(code: .signalingDisconnected, message: "signaling: the connection was closed")
                    for waiter in waiters { waiter.resume(returning: .failure(failure)) }
                    return error
                }
            }
            return nil
        }
    }

    /// On a new connection: `resume` with the session's id and token, and wait for `resumed`.
    /// A refusal or a timeout closes the connection (the run loop decides what next).
    /// - Returns: `nil` when the session resumed, else why not.
    func resume(on connection: SignalingConnection, until deadline: ContinuousClock.Instant) async -> PreflightError? {
        guard let resume = state.withLock({ $0.resume }) else {
            return PreflightError(code: .sessionResumeRefused, message: "signaling: the edge offered no session resume")
        }
        do throws(PreflightError) {
            _ = try await wait(for: .open, until: deadline)
            try await connection.send(.resume(resume))
            _ = try await wait(for: .resumed, until: deadline)
            logger.info("signaling session resumed", metadata: ["sessionId": "\(resume.sessionId)"])
            eventContinuation.yield(.reconnected)
            return nil
        } catch {
            logger.info("signaling session not resumed", metadata: ["error": "\(error.code): \(error.message)"])
            await connection.close()
            return error
        }
    }

    /// The session is over: every waiting request fails, ``events`` ends.
    func finish(_ error: PreflightError?) {
        let waiters = state.withLock { state in
            state.ended = .some(error)
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        let failure = error ?? PreflightError(code: .signalingDisconnected, message: "signaling: the connection was closed")
        for waiter in waiters { waiter.resume(returning: .failure(failure)) }
        eventContinuation.yield(.closed(error))
        eventContinuation.finish()
    }
}

import Logging
internal import PreflightCore
internal import PreflightNIO

/// What every feature's session sees, whatever the feature (a preflight test, a call, a probe, a
/// connectivity check): the `hello`'s welcome, the invite's answer, the signaling connection's
/// events and the ICE drivers' events. Each run's own input wraps it (`.session(_:)`) beside what
/// only that feature sees (its timers, the user's actions).
enum SessionInput: Sendable {
    case welcomed(Result<SignalingMessage.Welcome, PreflightError>)
    case answered(Result<SignalingMessage.Answer, PreflightError>)
    case signaling(SignalingClient.Event)
    case ice(ICEAgentDriver.Event, on: MediaLeg)
    /// The host's networks changed (``NetworkFollower``), or their first state.
    case networks(NetworkChange)
}

/// Which of a session's media connections an ICE event is about: `main` for a feature with one,
/// `publish` and `subscribe` for the connectivity check's two.
enum MediaLeg: Sendable, Hashable {
    case main, publish, subscribe
}

/// A feature's run as the session layer drives it: one handling of ``SessionInput`` for all
/// (``handle(_:group:)``), calling the run's own answers to each part. The defaults are what a
/// run that does not resume its session does: a lost signaling connection ends it (only a call
/// resumes), and nothing is owed to media that arrives by the event loop.
protocol SessionRun {
    /// The edge welcomed the session: gather with its servers.
    mutating func welcomed(_ welcome: SignalingMessage.Welcome, group: inout TaskGroup<Void>) async throws(PreflightError)
    /// The edge answered the invite (features whose answer comes as the invite's response).
    mutating func answered(_ answer: SignalingMessage.Answer, group: inout TaskGroup<Void>) async throws(PreflightError)
    /// A message the edge pushed.
    mutating func handle(_ message: SignalingMessage, group: inout TaskGroup<Void>) async throws(PreflightError)
    /// What one ICE agent reported.
    mutating func handle(_ event: ICEAgent.Event, on leg: MediaLeg, group: inout TaskGroup<Void>) async throws(PreflightError)
    /// A datagram of media that came through the run's input (not by the event loop).
    mutating func receive(_ datagram: Datagram, on leg: MediaLeg)
    /// The first media arrived on `leg`.
    mutating func mediaStarted(at instant: ContinuousClock.Instant, on leg: MediaLeg)
    /// The signaling connection was lost and is being resumed.
    mutating func signalingInterrupted(_ error: PreflightError) async
    /// The signaling connection was resumed.
    mutating func signalingResumed() async
    /// The signaling connection closed for good (`nil`: without an error of its own).
    mutating func signalingClosed(_ error: PreflightError?) async throws(PreflightError)
    /// The host's networks changed; the ICE drivers already follow them.
    mutating func networksChanged(_ change: NetworkChange) async throws(PreflightError)
}

extension SessionRun {
    /// The one handling of what every session sees: failures of the welcome or the answer end
    /// the run with their error; everything else goes to the run's own answers.
    mutating func handle(_ input: SessionInput, group: inout TaskGroup<Void>) async throws(PreflightError) {
        switch input {
        case .welcomed(let outcome):
            try await welcomed(try outcome.get(), group: &group)
        case .answered(let outcome):
            try await answered(try outcome.get(), group: &group)
        case .signaling(.message(let message)):
            try await handle(message, group: &group)
        case .signaling(.reconnecting(let error)):
            await signalingInterrupted(error)
        case .signaling(.reconnected):
            await signalingResumed()
        case .signaling(.closed(let error)):
            try await signalingClosed(error)
        case .ice(.agent(let event), let leg):
            try await handle(event, on: leg, group: &group)
        case .ice(.media(let datagram), let leg):
            receive(datagram, on: leg)
        case .ice(.mediaStarted(let instant), let leg):
            mediaStarted(at: instant, on: leg)
        case .networks(let change):
            try await networksChanged(change)
        }
    }

    mutating func answered(_ answer: SignalingMessage.Answer, group: inout TaskGroup<Void>) async throws(PreflightError) {}
    mutating func receive(_ datagram: Datagram, on leg: MediaLeg) {}
    mutating func mediaStarted(at instant: ContinuousClock.Instant, on leg: MediaLeg) {}
    mutating func signalingInterrupted(_ error: PreflightError) async {}
    mutating func signalingResumed() async {}
    mutating func networksChanged(_ change: NetworkChange) async throws(PreflightError) {}

    mutating func signalingClosed(_ error: PreflightError?) async throws(PreflightError) {
        throw Self.closedError(error)
    }

    /// The error a closed signaling connection ends a run with.
    static func closedError(_ error: PreflightError?) -> PreflightError {
        error ?? PreflightError(code: .signalingDisconnected, message: "signaling: the connection to the edge closed")
    }
}

extension TaskGroup where ChildTaskResult == Void {
    /// Starts what every feature's run needs from the session layer: the signaling connection and
    /// its events, the ICE drivers, and the `hello` whose welcome (or failure) starts the run.
    /// - Parameter wrap: makes a session input the run's own input.
    mutating func startSessionLayer<Input: Sendable>(
        signaling: SignalingClient, ice: [ICEAgentDriver], inputs: AsyncStream<Input>.Continuation,
        wrap: @escaping @Sendable (SessionInput) -> Input
    ) {
        addTask { await signaling.run() }
        addTask { for await event in signaling.events { inputs.yield(wrap(.signaling(event))) } }
        for driver in ice { addTask { await driver.run() } }
        addTask {
            do throws(PreflightError) {
                inputs.yield(wrap(.welcomed(.success(try await signaling.connect()))))
            } catch {
                inputs.yield(wrap(.welcomed(.failure(error))))
            }
        }
    }
}

extension TaskGroup where ChildTaskResult == Void {
    /// Follows the host's networks for `drivers` (``NetworkFollower``), each change an input.
    mutating func followNetworks<Input: Sendable>(
        _ source: NetworkSource, drivers: [ICEAgentDriver], logger: Logger, inputs: AsyncStream<Input>.Continuation,
        wrap: @escaping @Sendable (SessionInput) -> Input
    ) {
        addTask {
            await NetworkFollower.follow(source, drivers: drivers, logger: logger) { inputs.yield(wrap(.networks($0))) }
        }
    }
}

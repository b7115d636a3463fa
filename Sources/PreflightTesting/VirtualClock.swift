import PreflightCore
import Synchronization

/// A clock that runs with the system's and that a test moves forward: give its ``runClock`` to a
/// feature's options (`PreflightOptions.clock`, …) and ``advance(by:)`` skips time, so the run's
/// timers (its duration, sample ticks, drain, timeouts) fire at once instead of after a wait.
///
/// It reads the system's monotonic clock plus the time skipped so far, so a run that is never
/// moved measures exactly as on the system's clock, and one that is moved sees what it would see
/// if the process had been paused for that long. Instants the media path stamps (packets, ICE
/// events) stay the system's: move the clock after the stages whose timing a test checks, and
/// wait for media (an event, or `eventually`) before skipping past the window it needs.
///
/// ```swift
/// let clock = VirtualClock()
/// var options = PreflightOptions(accessToken: token, edgeURL: url, duration: .seconds(600))
/// options.clock = clock.runClock
/// let test = PreflightTest.run(options: options)
/// // … wait for `.connected` on test.events() …
/// await clock.advance(by: .seconds(600))   // the test ends now, not in ten minutes
/// ```
///
/// Every sleeper re-reads the clock when it is moved: those whose deadline passed return, in no
/// particular order among themselves, so move it in steps no longer than the shortest timer
/// whose order a test checks.
public final class VirtualClock: Sendable {
    private struct State {
        var skipped: Duration = .zero
        /// How many times the clock was moved.
        var moves: UInt64 = 0
        var nextID: UInt64 = 0
        /// Sleepers waiting for the clock to move, by id.
        var waiting: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        /// Sleeps in progress (armed timers).
        var sleeping = 0
    }

    private let state = Mutex(State())

    /// A clock at the system's time, nothing skipped yet.
    public init() {}

    /// The clock to give a run.
    public var runClock: RunClock {
        RunClock(now: { [self] in now }, sleep: { [self] deadline in try await sleep(until: deadline) })
    }

    /// The current instant: the system's plus everything skipped.
    public var now: ContinuousClock.Instant { ContinuousClock.now + state.withLock { $0.skipped } }

    /// The time skipped so far.
    public var skipped: Duration { state.withLock { $0.skipped } }

    /// How many tasks sleep on the clock now (armed timers).
    public var sleeperCount: Int { state.withLock { $0.sleeping } }

    /// Moves the clock `duration` forward: every sleeper whose deadline that passes wakes.
    public func advance(by duration: Duration) async {
        let woken = state.withLock { state in
            state.skipped += max(duration, .zero)
            state.moves += 1
            let woken = Array(state.waiting.values)
            state.waiting = [:]
            return woken
        }
        for continuation in woken { continuation.resume() }
        // Lets the woken tasks run to their next sleep (or their end) before the caller goes on.
        for _ in 0..<4 { await Task.yield() }
    }

    /// Waits (in real time, at most `timeout`) until at least `count` tasks sleep on the clock,
    /// then moves it: the way to be sure the run armed its timers before time passes them.
    /// - Returns: whether the sleepers were there before the timeout (the clock moves either way).
    @discardableResult
    public func advance(by duration: Duration, whenSleeping count: Int, timeout: Duration = .seconds(30)) async -> Bool {
        let ready = await eventually(within: timeout, every: .milliseconds(2)) { sleeperCount >= count }
        await advance(by: duration)
        return ready
    }

    private func sleep(until deadline: ContinuousClock.Instant) async throws {
        state.withLock { $0.sleeping += 1 }
        defer { state.withLock { $0.sleeping -= 1 } }
        while true {
            let (id, moves, skipped) = state.withLock { state in
                state.nextID += 1
                return (state.nextID, state.moves, state.skipped)
            }
            let remaining = deadline - (ContinuousClock.now + skipped)
            guard remaining > .zero else { return }
            // Whichever comes first: the system's time reaching the deadline, or the clock moved.
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await Task.sleep(for: remaining) }
                group.addTask { try await self.waitForMove(id, after: moves) }
                defer { group.cancelAll() }
                try await group.next()
            }
        }
    }

    /// Returns when the clock moves after its `moves`-th move (at once if it already did).
    private func waitForMove(_ id: UInt64, after moves: UInt64) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    // Cancelled before this lock: the handler found nothing to resume, so throw
                    // here. Cancelled after it: the handler takes the continuation back.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.moves != moves { return .success(()) }
                    state.waiting[id] = continuation
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            state.withLock { $0.waiting.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }
}

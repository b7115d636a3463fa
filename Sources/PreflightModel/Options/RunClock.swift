/// The one clock a feature's run reads and waits on: when it started, when each stage was
/// reached, its timers (duration, drain, sample ticks, timeouts). In use it is the system's
/// monotonic clock (``continuous``); a test gives the run a virtual clock instead
/// (`PreflightTesting.VirtualClock`) and moves time itself, so that "the test ends at its
/// duration" or "a sample every second" hold without waiting for them.
///
/// What it does not drive: packets on the wire, their pacing on the event loop and the ICE
/// agent's retransmissions, which follow the kernel's time because real sockets do.
///
/// Its instants are `ContinuousClock.Instant`s, so a run keeps one type of instant whichever
/// clock it is given.
public struct RunClock: Clock, Sendable {
    public typealias Instant = ContinuousClock.Instant
    public typealias Duration = Swift.Duration

    private let readNow: @Sendable () -> Instant
    private let sleepUntil: @Sendable (Instant) async throws -> Void

    /// A clock of your own: what `now` reads, and a sleep that returns at the deadline (and
    /// throws `CancellationError` when the sleeping task is cancelled).
    public init(now: @escaping @Sendable () -> Instant, sleep: @escaping @Sendable (Instant) async throws -> Void) {
        readNow = now
        sleepUntil = sleep
    }

    /// The system's monotonic clock (`ContinuousClock`).
    public static let continuous = RunClock(now: { ContinuousClock.now }, sleep: { try await Task.sleep(until: $0, clock: .continuous) })

    /// The current instant.
    public var now: Instant { readNow() }

    /// One nanosecond.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Waits until `deadline` (`tolerance` is not used).
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await sleepUntil(deadline)
    }
}

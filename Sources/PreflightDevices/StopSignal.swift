import Synchronization

/// Tells a blocking device operation on another thread to stop: a recording returns what it has,
/// a playback stops playing. Safe to share between threads and tasks.
public final class StopSignal: Sendable {
    private let stopped = Atomic(false)

    /// Creates a signal that has not been given.
    public init() {}

    /// Gives the signal. Further calls do nothing.
    public func stop() { stopped.store(true, ordering: .releasing) }

    /// Whether the signal was given.
    public var isStopped: Bool { stopped.load(ordering: .acquiring) }
}

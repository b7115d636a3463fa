import Dispatch
import Synchronization

/// What every feature's handle is made of (``PreflightTest``, ``Call``, ``LastmileProbe``,
/// ``Diagnostics``' checks and a registration's pre-call diagnosis): the feature's own state and
/// the run's common state under one lock, the subscribers of its events, the task that runs it,
/// and its one outcome.
///
/// - Events go to every subscriber of ``events()`` in the order they are emitted; a delegate is
///   one more subscriber (``adapt(_:)``), so callbacks and streams see the same sequence.
/// - The run ends once (``finish(_:final:update:)``): the final event goes out, every stream
///   finishes and every ``result()`` waiter gets the outcome. A later finish does nothing (a
///   `stop()` racing the run's own end).
/// - A stream made after the end yields the final event and finishes; ``result()`` asked after
///   the end returns the outcome at once. Neither ever hangs on an ended run.
final class RunHandle<Event: Sendable, Output: Sendable, Details: Sendable>: Sendable {
    private struct State {
        var details: Details
        var subscribers = EventSubscribers<Event>()
        var outcome: Result<Output, PreflightError>?
        var waiters: [Int: CheckedContinuation<Result<Output, PreflightError>, Never>] = [:]
        var nextWaiter = 0
        var task: Task<Void, Never>?
    }

    private let state: Mutex<State>

    init(_ details: Details) {
        state = Mutex(State(details: details))
    }

    /// Reads or changes the feature's own state under the handle's lock.
    func withLock<Value, Failure: Error>(_ body: (inout Details) throws(Failure) -> Value) throws(Failure) -> Value {
        try state.withLock { state throws(Failure) in try body(&state.details) }
    }

    /// How many event streams are kept (a stream whose listener left goes at the next event).
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// The outcome, once the run ended.
    var outcome: Result<Output, PreflightError>? { state.withLock { $0.outcome } }

    var isFinished: Bool { outcome != nil }

    // MARK: Events

    /// A new stream of the run's events from now on; after the end, the final event and the end.
    func events() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream()
        // A subscriber that stops listening is dropped at the next event (``EventSubscribers``).
        _ = state.withLock { $0.subscribers.add(continuation) }
        return stream
    }

    /// Runs `body` for each event on `queue` (a delegate adapter, one subscriber among any
    /// others): a task takes the events in order and hands each to the queue, so on a serial
    /// queue (the main queue, by default, or the one the options name) the callbacks run in the
    /// events' order, one at a time, and never block the run.
    func adapt(on queue: DispatchQueue, _ body: @escaping @Sendable (Event) -> Void) {
        let events = events()
        Task {
            for await event in events { queue.async { body(event) } }
        }
    }

    /// What one step of the run sends: events in order, and the outcome when the step ends the
    /// run (the last event is then the final one, which later subscribers get).
    struct Step {
        /// Whether the run had already ended before this step (nothing it collects is sent).
        let isEnded: Bool
        var events: [Event] = []
        var outcome: Result<Output, PreflightError>?
    }

    /// Updates the feature's state and sends what the step collected, under one lock so that
    /// state and events never disagree; after the end nothing is sent and no outcome replaces
    /// the first. The core of ``emit(_:)-swift.method`` and ``finish(_:update:)``.
    @discardableResult
    func apply<Value>(_ body: (inout Details, inout Step) -> Value) -> Value {
        let (value, ended) = state.withLock { state -> (Value, (Result<Output, PreflightError>, [AsyncStream<Event>.Continuation], [CheckedContinuation<Result<Output, PreflightError>, Never>])?) in
            var step = Step(isEnded: state.outcome != nil)
            let value = body(&state.details, &step)
            guard state.outcome == nil else { return (value, nil) }
            guard let outcome = step.outcome else {
                for event in step.events { state.subscribers.yield(event) }
                return (value, nil)
            }
            state.outcome = outcome
            for event in step.events.dropLast() { state.subscribers.yield(event) }
            let subscribers = step.events.last.flatMap { state.subscribers.end(with: $0) } ?? state.subscribers.endWithoutEvent()
            let waiters = Array(state.waiters.values)
            state.waiters.removeAll()
            return (value, (outcome, subscribers, waiters))
        }
        // Finishing a stream runs its onTermination: outside the lock.
        if let (outcome, subscribers, waiters) = ended {
            for continuation in subscribers { continuation.finish() }
            for waiter in waiters { waiter.resume(returning: outcome) }
        }
        return value
    }

    /// Updates the feature's state and sends the event it returns (none when `nil`).
    func emit(_ body: (inout Details) -> Event?) {
        apply { details, step in
            guard !step.isEnded, let event = body(&details) else { return }
            step.events.append(event)
        }
    }

    /// Sends `event` (nothing after the end).
    func emit(_ event: Event) {
        emit { _ in event }
    }

    // MARK: The end

    /// Ends the run with `outcome` once: `update` records it in the feature's state and returns
    /// the final event (`nil`: none), then every stream finishes and every waiter resumes.
    /// A later call changes nothing.
    func finish(_ outcome: Result<Output, PreflightError>, update: (inout Details) -> Event?) {
        apply { details, step in
            // A run that already ended keeps the state of its end.
            guard !step.isEnded else { return }
            if let event = update(&details) { step.events.append(event) }
            step.outcome = outcome
        }
    }

    /// Waits for the run's outcome: its output, or the error it failed with. Cancelling the
    /// waiting task stops the wait (error 31008) and leaves the run going.
    func result() async throws(PreflightError) -> Output {
        let key = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Output, PreflightError>, Never>) in
                let now = state.withLock { state -> Result<Output, PreflightError>? in
                    if let outcome = state.outcome { return outcome }
                    if Task.isCancelled { return .failure(Self.waitCancelled) }
                    state.waiters[key] = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: key) }?.resume(returning: .failure(Self.waitCancelled))
        }
        return try outcome.get()
    }

    private static var waitCancelled: PreflightError {
        PreflightError(code: .cancelled, message: "the wait for the result was cancelled (the run goes on)")
    }

    // MARK: The task

    /// Starts the task that runs the feature (kept for ``cancel()``).
    func start(_ operation: sending @escaping @isolated(any) () async -> Void) {
        let task = Task(operation: operation)
        state.withLock { $0.task = task }
    }

    /// Cancels the run's task (the run then finishes in its own way).
    func cancel() {
        state.withLock { $0.task }?.cancel()
    }
}

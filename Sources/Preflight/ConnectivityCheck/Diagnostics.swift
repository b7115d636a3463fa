import Foundation
public import Logging
public import PreflightModel
import Synchronization

/// 100ms's `HMSDiagnostics` connectivity check: fetches the edge's init endpoint, connects the
/// signaling, opens a publish and a subscribe connection (each with its own ICE), publishes
/// audio and video on the first and receives them back on the second, and reports it all in a
/// ``ConnectivityCheckResult`` (docs/measurement.md, "Connectivity check").
///
/// ```swift
/// let diagnostics = Diagnostics(options: ConnectivityCheckOptions(accessToken: token, edge: "https://edge.example.com"))
/// diagnostics.startConnectivityCheck(region: nil) { state in print(state) } completion: { result in print(result.state) }
/// ```
///
/// Progress comes as an `AsyncStream` per subscriber (``events()``, or by 100ms's name
/// ``connectivityStates()``); the `progress` closure only adapts it. ``result()`` waits for the
/// running (or last) check. One check runs at a time.
public final class Diagnostics: Sendable {
    /// The options checks run with.
    public let options: ConnectivityCheckOptions
    let logger: Logger
    let state = Mutex(State())

    struct State {
        var running: Task<ConnectivityCheckResult, Never>?
        /// Never ended: each check's states go to the same subscribers.
        var subscribers = EventSubscribers<ConnectivityCheckState>()
        /// The running or last check's outcome and the result it ended with (its states go to
        /// the subscribers above).
        var check: RunHandle<Never, ConnectivityCheckResult, ConnectivityCheckResult?>?
    }

    /// Creates diagnostics; nothing happens until a check starts.
    /// - Parameter logger: where checks log; nothing is logged by default.
    public init(options: ConnectivityCheckOptions, logger: Logger = Logger(label: "preflight", factory: { _ in SwiftLogNoOpLogHandler() })) {
        self.options = options
        self.logger = logger
    }

    /// The states of checks from now on, each once as it is reached; the stream ends when the
    /// subscriber stops listening.
    public func events() -> AsyncStream<ConnectivityCheckState> {
        let (stream, continuation) = AsyncStream<ConnectivityCheckState>.makeStream()
        // A subscriber that stops listening is dropped at the next event (``EventSubscribers``).
        _ = state.withLock { $0.subscribers.add(continuation) }
        return stream
    }

    /// 100ms's name for ``events()``.
    public func connectivityStates() -> AsyncStream<ConnectivityCheckState> {
        events()
    }

    /// Waits for the running check, or returns the last one's outcome.
    /// - Returns: the result of a check that reached ``ConnectivityCheckState/completed``.
    /// - Throws: the first error of a check that ended before (stopped, refused, no media);
    ///   ``lastResult`` holds how far it got. 70005 when no check was started.
    public func result() async throws(PreflightError) -> ConnectivityCheckResult {
        guard let check = state.withLock({ $0.check }) else {
            throw PreflightError(code: .invalidArgument, message: "connectivity check: none was started")
        }
        return try await check.result()
    }

    /// The result the running check ended with, or the last one's, also of a check that failed;
    /// `nil` before the first ends.
    public var lastResult: ConnectivityCheckResult? {
        state.withLock { $0.check }?.withLock { $0 }
    }

    /// Runs a check (100ms's `startConnectivityCheck(region:progress:completion:)`): `progress`
    /// gets each state as it is reached, `completion` the result, also of a check that failed.
    /// A check started while another runs completes at once with error 70602 in its result.
    /// - Parameter region: a hint passed to the init endpoint (`region`); an edge answers for itself.
    public func startConnectivityCheck(
        region: String? = nil, progress: @escaping @Sendable (ConnectivityCheckState) -> Void,
        completion: @escaping @Sendable (ConnectivityCheckResult) -> Void
    ) {
        Task {
            do throws(PreflightError) {
                completion(try await connectivityCheck(region: region, progress: progress))
            } catch {
                completion(ConnectivityCheckRun.failedBeforeStart(error, options: options))
            }
        }
    }

    /// Runs a check and returns its result (also of a check that failed: its `state` and
    /// `errors` say how far it got and why).
    /// - Throws: 70602 when a check is already running, 70005 for options out of range.
    public func connectivityCheck(
        region: String? = nil, progress: (@Sendable (ConnectivityCheckState) -> Void)? = nil
    ) async throws(PreflightError) -> ConnectivityCheckResult {
        guard ConnectivityCheckOptions.durationRange.contains(options.duration) else {
            throw PreflightError(code: .invalidArgument, message: "connectivity check: the duration must be 5 to 120 s, got \(options.duration)")
        }
        // The progress closure is one more subscriber of the states, finished when the run ends
        // (after it delivered every state).
        let (states, continuation) = AsyncStream<ConnectivityCheckState>.makeStream()
        let adapter = progress.map { progress in Task { for await state in states { progress(state) } } }
        let (task, key) = try state.withLock { state throws(PreflightError) -> (Task<ConnectivityCheckResult, Never>, Int?) in
            guard state.running == nil else {
                continuation.finish()
                throw PreflightError(code: .connectivityCheckInProgress, message: "connectivity check: one is already running; stop it first")
            }
            let key = adapter == nil ? nil : state.subscribers.add(continuation)
            let check = RunHandle<Never, ConnectivityCheckResult, ConnectivityCheckResult?>(nil)
            let task = Task { [self] in
                let result = await ConnectivityCheckRun.run(self, region: region)
                check.finish(Self.outcome(of: result)) { last in
                    last = result
                    return nil
                }
                return result
            }
            state.running = task
            state.check = check
            return (task, key)
        }
        let result = await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
        state.withLock { state in
            state.running = nil
            if let key { state.subscribers.remove(key) }
        }
        continuation.finish()
        await adapter?.value
        return result
    }

    /// Ends the running check early: its result holds what was measured so far, with error
    /// 31008 (cancelled). Does nothing when none runs.
    public func stopConnectivityCheck() {
        state.withLock { $0.running }?.cancel()
    }

    func emit(_ checkState: ConnectivityCheckState) {
        state.withLock { $0.subscribers.yield(checkState) }
    }

    /// A check's outcome: its result once it completed, else its first error.
    static func outcome(of result: ConnectivityCheckResult) -> Result<ConnectivityCheckResult, PreflightError> {
        guard result.state != .completed else { return .success(result) }
        let first = result.errors.first
        return .failure(PreflightError(
            code: PreflightError.Code(first?.code ?? PreflightError.Code.connectionError.rawValue),
            message: first?.message ?? "connectivity check: ended in state \(result.state) without an error"))
    }
}

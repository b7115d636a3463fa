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
/// Progress comes as an `AsyncStream` per subscriber (``connectivityStates()``); the `progress`
/// closure only adapts it. One check runs at a time.
public final class Diagnostics: Sendable {
    /// The options checks run with.
    public let options: ConnectivityCheckOptions
    let logger: Logger
    let state = Mutex(State())

    struct State {
        var running: Task<ConnectivityCheckResult, Never>?
        /// Never ended: each check's states go to the same subscribers.
        var subscribers = EventSubscribers<ConnectivityCheckState>()
    }

    /// Creates diagnostics; nothing happens until a check starts.
    /// - Parameter logger: where checks log; nothing is logged by default.
    public init(options: ConnectivityCheckOptions, logger: Logger = Logger(label: "preflight", factory: { _ in SwiftLogNoOpLogHandler() })) {
        self.options = options
        self.logger = logger
    }

    /// The states of checks from now on, each once as it is reached; the stream ends when the
    /// subscriber stops listening.
    public func connectivityStates() -> AsyncStream<ConnectivityCheckState> {
        let (stream, continuation) = AsyncStream<ConnectivityCheckState>.makeStream()
        if let key = state.withLock({ $0.subscribers.add(continuation) }) {
            continuation.onTermination = { [weak self] _ in self?.state.withLock { $0.subscribers.remove(key) } }
        }
        return stream
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
            let task = Task { [self] in await ConnectivityCheckRun.run(self, region: region) }
            state.running = task
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
}

import Foundation
import Logging
public import PreflightModel
internal import PreflightCore
import Synchronization

/// A preflight test call: connects to the edge, runs a test call (echo or record-playback),
/// reports a stats sample every second and ends with a ``PreflightReport``.
///
/// Start one with ``run(options:delegate:logger:)``; it is not created directly. Follow it with
/// ``events()`` (an `AsyncStream` per subscriber) or a ``PreflightTestDelegate``:
///
/// ```swift
/// let test = PreflightTest.run(options: PreflightOptions(accessToken: token, edgeURL: url))
/// for await event in test.events() {
///     if case .completed(let report) = event { print(report.callQuality as Any) }
/// }
/// ```
///
/// ``stop()`` ends the test at once in ``PreflightTestStatus/failed`` with error 31008 and the
/// partial report.
public final class PreflightTest: Sendable {
    /// The options the test was started with.
    public let options: PreflightOptions
    let logger: Logger
    let state = Mutex(State())

    struct State {
        var status = PreflightTestStatus.connecting
        var startTime: Int64 = 0
        var endTime: Int64?
        var partial = PreflightReport()
        var completed: PreflightReport?
        var latestSample: StatsSample?
        var subscribers: [Int: AsyncStream<PreflightTestEvent>.Continuation] = [:]
        var nextSubscriber = 0
        var terminal: PreflightTestEvent?
        var task: Task<Void, Never>?
    }

    private init(options: PreflightOptions, logger: Logger) {
        self.options = options
        self.logger = logger
    }

    /// Starts a preflight test and returns it.
    /// - Parameters:
    ///   - options: the token, the edge and the test's settings.
    ///   - delegate: receives the events as callbacks (optional; ``events()`` gives the same).
    ///   - logger: where the test logs; nothing is logged by default.
    public static func run(
        options: PreflightOptions, delegate: (any PreflightTestDelegate)? = nil,
        logger: Logger = Logger(label: "preflight", factory: { _ in SwiftLogNoOpLogHandler() })
    ) -> PreflightTest {
        let test = PreflightTest(options: options, logger: logger)
        if let delegate {
            let events = test.events()
            // The delegate only adapts the event stream (one subscriber among any others).
            Task { [test] in
                for await event in events {
                    switch event {
                    case .connected: delegate.preflightTestDidConnect(test)
                    case .sample(let sample): delegate.preflightTest(test, didReceive: sample)
                    case .reconnecting(let error): delegate.preflightTest(test, isReconnectingWithError: error)
                    case .reconnected: delegate.preflightTestDidReconnect(test)
                    case .qualityWarnings(let current, let previous):
                        delegate.preflightTest(test, didReceiveQualityWarnings: current, previousWarnings: previous)
                    case .completed(let report): delegate.preflightTest(test, didCompleteWith: report)
                    case .failed(let error, _): delegate.preflightTest(test, didFailWithError: error)
                    }
                }
            }
        }
        let start = Self.nowMilliseconds()
        test.state.withLock { $0.startTime = start }
        let task = Task { [test] in
            await PreflightTestRun.run(test, startTime: start)
        }
        test.state.withLock { $0.task = task }
        return test
    }

    // MARK: Properties (Twilio's PreflightTest properties)

    /// The test call's sid, once the edge has routed the call.
    public var callSid: String? { state.withLock { $0.partial.callSid.isEmpty ? nil : $0.partial.callSid } }
    /// When the test started: milliseconds since the Unix epoch.
    public var startTime: Int64 { state.withLock { $0.startTime } }
    /// When the test ended: milliseconds since the Unix epoch; `nil` while it runs.
    public var endTime: Int64? { state.withLock { $0.endTime } }
    /// The report: empty unless the test ``PreflightTestStatus/completed`` (as in Twilio's SDK).
    public var report: PreflightReport { state.withLock { $0.completed ?? PreflightReport() } }
    /// What has been collected so far, or at the end of a failed test: the partial report.
    public var partialReport: PreflightReport { state.withLock { $0.completed ?? $0.partial } }
    /// The latest stats sample.
    public var latestSample: StatsSample? { state.withLock { $0.latestSample } }
    /// The test's state.
    public var status: PreflightTestStatus { state.withLock { $0.status } }

    // MARK: Events

    /// A new stream of the test's events from now on. A stream made after the test ended yields
    /// its final event (completed or failed) and finishes, so awaiting it never hangs.
    public func events() -> AsyncStream<PreflightTestEvent> {
        let (stream, continuation) = AsyncStream<PreflightTestEvent>.makeStream()
        state.withLock { state in
            if let terminal = state.terminal {
                continuation.yield(terminal)
                continuation.finish()  // no onTermination set yet: safe under the lock
                return
            }
            let key = state.nextSubscriber
            state.nextSubscriber += 1
            state.subscribers[key] = continuation
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.subscribers.removeValue(forKey: key) }
            }
        }
        return stream
    }

    /// Waits for the end of the test.
    /// - Returns: the report of the completed test.
    /// - Throws: the ``PreflightError`` the test failed with (``partialReport`` holds what was collected).
    public func result() async throws(PreflightError) -> PreflightReport {
        for await event in events() {
            switch event {
            case .completed(let report): return report
            case .failed(let error, _): throw error
            default: continue
            }
        }
        throw PreflightError(code: .cancelled, message: "preflight test: the event stream ended without a result")
    }

    /// Stops the test: it fails at once with error 31008 (cancelled) and the partial report; the
    /// call is hung up and the sockets closed in the background.
    public func stop() {
        finish(.failure(PreflightError(code: .cancelled, message: "preflight test cancelled by stop()")))
        state.withLock { $0.task }?.cancel()
    }

    // MARK: Internals used by the run

    func emit(_ event: PreflightTestEvent) {
        state.withLock { state in
            guard state.terminal == nil else { return }
            switch event {
            case .connected: state.status = .connected
            case .sample(let sample): state.latestSample = sample
            default: break
            }
            for continuation in state.subscribers.values { continuation.yield(event) }
        }
    }

    func update(_ body: (inout PreflightReport) -> Void) {
        state.withLock { state in
            guard state.terminal == nil else { return }
            body(&state.partial)
        }
    }

    /// The report `outcome` ends the test with at `end`: the completed report, or the partial
    /// one with the error; both with the test's timing.
    func finalReport(_ outcome: Result<PreflightReport, PreflightError>, end: Int64) -> PreflightReport {
        state.withLock { state in
            var report: PreflightReport
            switch outcome {
            case .success(let completed): report = completed
            case .failure(let error):
                report = state.partial
                report.error = ReportError(error)
            }
            report.networkTiming.preflightTest = TimingMeasurement(startTime: state.startTime, endTime: end)
            return report
        }
    }

    /// Ends the test once: later calls do nothing (a stop racing the run's own end).
    func finish(_ outcome: Result<PreflightReport, PreflightError>, end: Int64 = PreflightTest.nowMilliseconds()) {
        let report = finalReport(outcome, end: end)
        // Finishing a stream runs its onTermination, which takes the lock: finish outside it.
        let ended = state.withLock { state -> (PreflightTestEvent, [AsyncStream<PreflightTestEvent>.Continuation])? in
            guard state.terminal == nil else { return nil }
            state.endTime = end
            let event: PreflightTestEvent
            switch outcome {
            case .success:
                state.completed = report
                state.status = .completed
                event = .completed(report)
            case .failure(let error):
                state.partial = report
                state.status = .failed
                event = .failed(error, partialReport: report)
            }
            state.terminal = event
            let subscribers = Array(state.subscribers.values)
            state.subscribers.removeAll()
            return (event, subscribers)
        }
        guard let (event, subscribers) = ended else { return }
        for continuation in subscribers {
            continuation.yield(event)
            continuation.finish()
        }
    }

    var isFinished: Bool { state.withLock { $0.terminal != nil } }

    static func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }
}

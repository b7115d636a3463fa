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
    let handle = RunHandle<PreflightTestEvent, PreflightReport, Details>(Details())

    /// The test's own state, under the handle's lock.
    struct Details {
        var status = PreflightTestStatus.connecting
        var startTime: Int64 = 0
        var endTime: Int64?
        /// What the run collected so far: the partial report is assembled from it when read.
        var draft: PreflightReportDraft?
        /// The report the test ended with (completed or partial).
        var final: PreflightReport?
        var latestSample: StatsSample?
    }

    private init(options: PreflightOptions, logger: Logger) {
        self.options = options
        self.logger = logger
    }

    /// Starts a preflight test and returns it.
    /// - Parameters:
    ///   - options: the token, the edge and the test's settings.
    ///   - delegate: receives the events as callbacks, on ``PreflightOptions/delegateQueue`` (the
    ///     main queue by default; optional: ``events()`` gives the same).
    ///   - logger: where the test logs; nothing is logged by default.
    public static func run(
        options: PreflightOptions, delegate: (any PreflightTestDelegate)? = nil,
        logger: Logger = Logger(label: "preflight", factory: { _ in SwiftLogNoOpLogHandler() })
    ) -> PreflightTest {
        let test = PreflightTest(options: options, logger: logger)
        if let delegate {
            // The delegate only adapts the event stream (one subscriber among any others).
            test.handle.adapt(on: options.delegateQueue) { [test] event in
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
        let start = Self.nowMilliseconds()
        test.handle.withLock { $0.startTime = start }
        test.handle.start { [test] in
            await PreflightTestRun.run(test, startTime: start)
        }
        return test
    }

    // MARK: Properties (Twilio's PreflightTest properties)

    /// The test call's sid, once the edge has routed the call.
    public var callSid: String? {
        let sid = handle.withLock { $0.final?.callSid ?? $0.draft?.callSid } ?? ""
        return sid.isEmpty ? nil : sid
    }
    /// When the test started: milliseconds since the Unix epoch.
    public var startTime: Int64 { handle.withLock { $0.startTime } }
    /// When the test ended: milliseconds since the Unix epoch; `nil` while it runs.
    public var endTime: Int64? { handle.withLock { $0.endTime } }
    /// The report: empty unless the test ``PreflightTestStatus/completed`` (as in Twilio's SDK).
    public var report: PreflightReport {
        handle.withLock { $0.status == .completed ? $0.final : nil } ?? PreflightReport()
    }
    /// What has been collected so far, or at the end of a failed test: the partial report.
    public var partialReport: PreflightReport {
        let (final, draft) = handle.withLock { ($0.final, $0.draft) }
        return final ?? draft?.assemble() ?? PreflightReport()
    }
    /// The latest stats sample.
    public var latestSample: StatsSample? { handle.withLock { $0.latestSample } }
    /// The test's state.
    public var status: PreflightTestStatus { handle.withLock { $0.status } }

    // MARK: Events and result

    /// A new stream of the test's events from now on. A stream made after the test ended yields
    /// its final event (completed or failed) and finishes, so awaiting it never hangs.
    public func events() -> AsyncStream<PreflightTestEvent> {
        handle.events()
    }

    /// Waits for the end of the test.
    /// - Returns: the report of the completed test.
    /// - Throws: the ``PreflightError`` the test failed with (``partialReport`` holds what was collected).
    public func result() async throws(PreflightError) -> PreflightReport {
        try await handle.result()
    }

    /// Stops the test: it fails at once with error 31008 (cancelled) and the partial report; the
    /// call is hung up and the sockets closed in the background.
    public func stop() {
        finish(.failure(PreflightError(code: .cancelled, message: "preflight test cancelled by stop()")))
        handle.cancel()
    }

    // MARK: Internals used by the run

    func emit(_ event: PreflightTestEvent) {
        handle.emit { details in
            switch event {
            case .connected: details.status = .connected
            case .sample(let sample): details.latestSample = sample
            default: break
            }
            return event
        }
    }

    /// Keeps what the run collected so far (copied, not assembled: the report is made when read).
    func publish(_ draft: PreflightReportDraft) {
        handle.withLock { details in
            guard details.final == nil else { return }
            details.draft = draft
        }
    }

    /// The report `outcome` ends the test with at `end`: the completed report, or the one
    /// assembled from what was collected, with the error; both with the test's timing.
    func finalReport(_ outcome: Result<PreflightReport, PreflightError>, end: Int64) -> PreflightReport {
        let (draft, startTime) = handle.withLock { ($0.draft, $0.startTime) }
        var report: PreflightReport
        switch outcome {
        case .success(let completed): report = completed
        case .failure(let error):
            report = draft?.assemble() ?? PreflightReport()
            report.error = ReportError(error)
        }
        report.networkTiming.preflightTest = TimingMeasurement(startTime: startTime, endTime: end)
        return report
    }

    /// Ends the test once with `report` (made by ``finalReport(_:end:)``): later calls do
    /// nothing (a stop racing the run's own end).
    func finish(_ outcome: Result<PreflightReport, PreflightError>, report: PreflightReport, end: Int64) {
        let delivered: Result<PreflightReport, PreflightError> = outcome.map { _ in report }
        handle.finish(delivered) { details in
            details.endTime = end
            details.final = report
            switch outcome {
            case .success:
                details.status = .completed
                return .completed(report)
            case .failure(let error):
                details.status = .failed
                return .failed(error, partialReport: report)
            }
        }
    }

    /// Ends the test once with `outcome` at `end`.
    func finish(_ outcome: Result<PreflightReport, PreflightError>, end: Int64 = PreflightTest.nowMilliseconds()) {
        finish(outcome, report: finalReport(outcome, end: end), end: end)
    }

    var isFinished: Bool { handle.isFinished }

    static func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }
}

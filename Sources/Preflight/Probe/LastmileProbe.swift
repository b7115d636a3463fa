import Foundation
public import Logging
public import PreflightModel
import Synchronization

/// Agora's last-mile probe test: the uplink's and the downlink's available bandwidth, loss and
/// jitter, and the RTT to the edge, in about 3 s per direction (each direction's train ramps to a
/// knee or its ceiling and stops, 4 s at most; docs/measurement.md, "Bandwidth").
///
/// ```swift
/// let probe = LastmileProbe(options: LastmileProbeOptions(accessToken: token, edgeURL: url))
/// try probe.start(config: LastmileProbeConfig(expectedUplinkBitrate: 2_000_000, expectedDownlinkBitrate: 2_000_000))
/// for await event in probe.events() {
///     if case .lastmileProbeResult(let result) = event { print(result.uplinkReport?.availableBandwidth ?? 0) }
/// }
/// ```
///
/// Events come as an `AsyncStream` per subscriber (``events()``) or through a
/// ``LastmileProbeDelegate``, which only adapts the stream. A probe runs once.
public final class LastmileProbe: Sendable {
    /// The options the probe was made with.
    public let options: LastmileProbeOptions
    let logger: Logger
    let handle = RunHandle<LastmileProbeEvent, LastmileProbeResult, Details>(Details())

    /// The probe's own state, under the handle's lock.
    struct Details {
        var config: LastmileProbeConfig?
        var latestQuality = NetworkQuality.unknown
        var result: LastmileProbeResult?
        var stopped = false
    }

    /// Creates a probe; nothing happens until ``start(config:)``.
    /// - Parameters:
    ///   - options: the token, the edge and the connection's settings.
    ///   - delegate: receives the events as callbacks, on ``LastmileProbeOptions/delegateQueue``
    ///     (the main queue by default; optional: ``events()`` gives the same).
    ///   - logger: where the probe logs; nothing is logged by default.
    public init(
        options: LastmileProbeOptions, delegate: (any LastmileProbeDelegate)? = nil,
        logger: Logger = Logger(label: "preflight", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.options = options
        self.logger = logger
        if let delegate {
            // The delegate is one more subscriber of the stream.
            handle.adapt(on: options.delegateQueue) { event in
                switch event {
                case .lastmileQuality(let quality): delegate.lastmileQuality(quality)
                case .lastmileProbeResult(let result): delegate.lastmileProbeResult(result)
                }
            }
        }
    }

    /// Starts the probe (Agora's `startLastmileProbeTest`).
    /// - Throws: 70301 for a configuration out of range (an expected bitrate outside
    ///   100,000…5,000,000 bps, or no direction), 70302 when the probe was already started.
    public func start(config: LastmileProbeConfig = LastmileProbeConfig()) throws(PreflightError) {
        try config.validate()
        try handle.withLock { details throws(PreflightError) in
            guard details.config == nil else {
                throw PreflightError(code: .probeRefused, message: "last-mile probe: already started (a probe runs once)")
            }
            details.config = config
        }
        handle.start { [self] in await LastmileProbeRun.run(self, config: config) }
    }

    /// Stops the probe (Agora's `stopLastmileProbeTest`): it ends at once with what it measured so
    /// far and error 31008 in its result; the edge's session is closed in the background.
    public func stop() {
        handle.withLock { $0.stopped = true }
        handle.cancel()
    }

    /// A new stream of the probe's events from now on. A stream made after the result yields the
    /// result and finishes.
    public func events() -> AsyncStream<LastmileProbeEvent> {
        handle.events()
    }

    /// Waits for the probe's result.
    /// - Returns: the result of a probe that ran to its end (a direction may still be
    ///   incomplete: its `state` says so).
    /// - Throws: the ``PreflightError`` that ended the probe early (stopped, refused, the
    ///   connection lost); ``partialResult`` holds what it measured, with that error.
    public func result() async throws(PreflightError) -> LastmileProbeResult {
        try await handle.result()
    }

    /// The result the probe ended with, also of one that ended early (its `error` says why);
    /// `nil` while it runs. The ``LastmileProbeEvent/lastmileProbeResult(_:)`` event carries the same.
    public var partialResult: LastmileProbeResult? { handle.withLock { $0.result } }

    /// The latest `lastmileQuality` rating (``NetworkQuality/unknown`` before the first).
    public var latestQuality: NetworkQuality { handle.withLock { $0.latestQuality } }

    /// Whether ``stop()`` was called.
    var isStopped: Bool { handle.withLock { $0.stopped } }

    func emit(quality: NetworkQuality) {
        handle.emit { details in
            details.latestQuality = quality
            return .lastmileQuality(quality)
        }
    }

    /// Ends the probe once with `result`, and `error` when it ended early.
    func finish(_ result: LastmileProbeResult, error: PreflightError?) {
        handle.finish(error.map { .failure($0) } ?? .success(result)) { details in
            details.result = result
            return .lastmileProbeResult(result)
        }
    }
}

import Foundation
public import Logging
public import PreflightModel
import Synchronization

/// Agora's last-mile probe test: the uplink's and the downlink's available bandwidth, loss and
/// jitter, and the RTT to the edge, in about 5 s per direction (docs/measurement.md, "Bandwidth").
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
    let state = Mutex(State())

    struct State {
        var config: LastmileProbeConfig?
        var subscribers = EventSubscribers<LastmileProbeEvent>()
        var latestQuality = NetworkQuality.unknown
        var result: LastmileProbeResult?
        var task: Task<Void, Never>?
        var stopped = false
    }

    /// Creates a probe; nothing happens until ``start(config:)``.
    /// - Parameters:
    ///   - options: the token, the edge and the connection's settings.
    ///   - delegate: receives the events as callbacks (optional; ``events()`` gives the same).
    ///   - logger: where the probe logs; nothing is logged by default.
    public init(
        options: LastmileProbeOptions, delegate: (any LastmileProbeDelegate)? = nil,
        logger: Logger = Logger(label: "preflight", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.options = options
        self.logger = logger
        if let delegate {
            let events = events()
            // The delegate is one more subscriber of the stream.
            Task {
                for await event in events {
                    switch event {
                    case .lastmileQuality(let quality): delegate.lastmileQuality(quality)
                    case .lastmileProbeResult(let result): delegate.lastmileProbeResult(result)
                    }
                }
            }
        }
    }

    /// Starts the probe (Agora's `startLastmileProbeTest`).
    /// - Throws: 70301 for a configuration out of range (an expected bitrate outside
    ///   100,000…5,000,000 bps, or no direction), 70302 when the probe was already started.
    public func start(config: LastmileProbeConfig = LastmileProbeConfig()) throws(PreflightError) {
        try config.validate()
        try state.withLock { state throws(PreflightError) in
            guard state.config == nil else {
                throw PreflightError(code: .probeRefused, message: "last-mile probe: already started (a probe runs once)")
            }
            state.config = config
        }
        let task = Task { [self] in await LastmileProbeRun.run(self, config: config) }
        state.withLock { $0.task = task }
    }

    /// Stops the probe (Agora's `stopLastmileProbeTest`): it ends at once with what it measured so
    /// far and error 31008 in its result; the edge's session is closed in the background.
    public func stop() {
        let task = state.withLock { state -> Task<Void, Never>? in
            state.stopped = true
            return state.task
        }
        task?.cancel()
    }

    /// A new stream of the probe's events from now on. A stream made after the result yields the
    /// result and finishes.
    public func events() -> AsyncStream<LastmileProbeEvent> {
        let (stream, continuation) = AsyncStream<LastmileProbeEvent>.makeStream()
        state.withLock { state in
            guard let key = state.subscribers.add(continuation) else { return }
            continuation.onTermination = { [weak self] _ in self?.state.withLock { $0.subscribers.remove(key) } }
        }
        return stream
    }

    /// Waits for the probe's result.
    public func result() async -> LastmileProbeResult {
        for await event in events() {
            if case .lastmileProbeResult(let result) = event { return result }
        }
        return state.withLock { $0.result } ?? LastmileProbeResult()
    }

    /// The latest `lastmileQuality` rating (``NetworkQuality/unknown`` before the first).
    public var latestQuality: NetworkQuality { state.withLock { $0.latestQuality } }

    /// Whether ``stop()`` was called.
    var isStopped: Bool { state.withLock { $0.stopped } }

    func emit(quality: NetworkQuality) {
        state.withLock { state in
            guard state.result == nil else { return }
            state.latestQuality = quality
            state.subscribers.yield(.lastmileQuality(quality))
        }
    }

    func finish(_ result: LastmileProbeResult) {
        let subscribers = state.withLock { state -> [AsyncStream<LastmileProbeEvent>.Continuation]? in
            guard state.result == nil else { return nil }
            state.result = result
            return state.subscribers.end(with: .lastmileProbeResult(result))
        }
        for continuation in subscribers ?? [] { continuation.finish() }
    }
}

import CoreMetrics
import PreflightCore
import Synchronization

/// The edge's metrics, recorded through swift-metrics with the factory it is given (the edge
/// never bootstraps the metrics system). Media counters are taken from ``MediaService/Counters``
/// once a second and at every scrape, so that the datagram path pays nothing for them; reports
/// are counted as they are stored.
final class EdgeMetrics: Sendable {
    private let factory: any MetricsFactory
    private let signalingSessions: Gauge
    private let mediaSessions: Gauge
    private let datagramsReceived: Counter
    private let datagramsSent: Counter
    private let dropped: [(@Sendable (MediaService.Counters) -> Int, Counter)]
    private let rtt: Recorder
    private let jitter: Recorder
    private let mos: Recorder
    private let iceConnection: Recorder
    private let last = Mutex(MediaService.Counters())

    /// The histogram buckets of each recorder, for a Prometheus factory.
    static let buckets: [String: [Double]] = [
        "preflight_edge_report_rtt_ms": [10, 25, 50, 100, 150, 200, 300, 400, 600, 1000],
        "preflight_edge_report_jitter_ms": [1, 2, 5, 10, 20, 30, 50, 100],
        "preflight_edge_report_mos": [1, 2, 2.5, 3, 3.5, 3.7, 4, 4.1, 4.2, 4.3, 4.4, 4.5],
        "preflight_edge_report_ice_connection_seconds": [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10],
    ]

    init(factory: any MetricsFactory) {
        self.factory = factory
        signalingSessions = Gauge(label: "preflight_edge_signaling_sessions", factory: factory)
        mediaSessions = Gauge(label: "preflight_edge_media_sessions", factory: factory)
        datagramsReceived = Counter(label: "preflight_edge_datagrams_received_total", factory: factory)
        datagramsSent = Counter(label: "preflight_edge_datagrams_sent_total", factory: factory)
        let reasons: [(String, @Sendable (MediaService.Counters) -> Int)] = [
            ("malformed", { $0.droppedMalformed }), ("unverified", { $0.droppedUnverified }),
            ("rate_limited", { $0.droppedRateLimited }), ("over_budget", { $0.droppedOverBudget }),
            ("over_recording_budget", { $0.droppedOverRecordingBudget }), ("wrong_payload_type", { $0.droppedWrongPayloadType }),
            ("unbridged", { $0.droppedUnbridged }), ("undecryptable", { $0.droppedUndecryptable }),
            ("over_probe_rate", { $0.droppedOverProbeRate }),
        ]
        dropped = reasons.map { reason, path in
            (path, Counter(label: "preflight_edge_datagrams_dropped_total", dimensions: [("reason", reason)], factory: factory))
        }
        rtt = Recorder(label: "preflight_edge_report_rtt_ms", factory: factory)
        jitter = Recorder(label: "preflight_edge_report_jitter_ms", factory: factory)
        mos = Recorder(label: "preflight_edge_report_mos", factory: factory)
        iceConnection = Recorder(label: "preflight_edge_report_ice_connection_seconds", factory: factory)
    }

    /// Brings the media counters and the session gauges up to date.
    func sync(media counters: MediaService.Counters, signalingSessions sessions: Int, mediaSessions active: Int) {
        signalingSessions.record(sessions)
        mediaSessions.record(active)
        let previous = last.withLock { last in
            defer { last = counters }
            return last
        }
        func add(_ counter: Counter, _ now: Int, _ before: Int) {
            if now > before { counter.increment(by: now - before) }
        }
        add(datagramsReceived, counters.datagramsReceived, previous.datagramsReceived)
        add(datagramsSent, counters.datagramsSent, previous.datagramsSent)
        for (read, counter) in dropped { add(counter, read(counters), read(previous)) }
    }

    /// Counts a stored report: tests by kind, outcome and callQuality, ICE failures, TURN use,
    /// and its RTT, jitter, MOS and ICE time in the histograms.
    func record(_ report: StoredReport) {
        let summary = report.summary
        let outcome = summary.errorCode == nil ? "completed" : "failed"
        let quality = summary.callQuality.map(String.init) ?? "none"
        Counter(
            label: "preflight_edge_tests_total",
            dimensions: [("kind", report.kind.rawValue), ("outcome", outcome), ("call_quality", quality)], factory: factory
        ).increment()
        if summary.errorCode == PreflightError.Code.mediaConnectionFailed.rawValue {
            Counter(label: "preflight_edge_ice_failures_total", dimensions: [("kind", report.kind.rawValue)], factory: factory).increment()
        }
        if let turn = summary.isTurnRequired {
            Counter(
                label: "preflight_edge_turn_total", dimensions: [("kind", report.kind.rawValue), ("required", turn ? "true" : "false")],
                factory: factory
            ).increment()
        }
        if let value = summary.rtt, value.isFinite { rtt.record(value) }
        if let value = summary.jitter, value.isFinite { jitter.record(value) }
        if let value = summary.mos, value.isFinite { mos.record(value) }
        if let value = summary.iceConnectionTime, value.isFinite { iceConnection.record(value / 1000) }
    }

    /// Runs one store operation and records how long it took (failed ones too).
    func timeStore<Value>(
        _ operation: String, _ body: () async throws(PreflightError) -> Value
    ) async throws(PreflightError) -> Value {
        let timer = Timer(label: "preflight_edge_store_seconds", dimensions: [("operation", operation)], factory: factory)
        let start = ContinuousClock.now
        defer {
            let elapsed = start.duration(to: .now).components
            timer.recordNanoseconds(elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000)
        }
        return try await body()
    }

    /// Counts an API request by route and status.
    func request(_ route: String, status: Int) {
        Counter(
            label: "preflight_edge_api_requests_total", dimensions: [("route", route), ("status", String(status))], factory: factory
        ).increment()
    }
}

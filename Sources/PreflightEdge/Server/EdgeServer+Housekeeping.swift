import Foundation
import Logging
import PreflightCore

extension EdgeServer {
    /// Once a second: the media counters and session gauges into the metrics. Once an hour (and
    /// at start): the retention sweep. Until the task is cancelled.
    func housekeeping() async {
        var lastSweep: ContinuousClock.Instant?
        while !Task.isCancelled {
            syncMetrics()
            if let retention = configuration.reportRetention, lastSweep.map({ $0.duration(to: .now) >= .seconds(3600) }) ?? true {
                lastSweep = .now
                await sweep(retention: retention)
            }
            guard (try? await Task.sleep(for: .seconds(1))) != nil else { return }
        }
    }

    /// Deletes what is older than `retention`, of the accounts this edge serves (edges sharing a
    /// database each sweep their own accounts).
    func sweep(retention: Duration) async {
        let cutoff = ReportStore.now() - Int64(retention.components.seconds) * 1000
        do {
            let deleted = try await store.deleteReports(receivedBefore: cutoff, accounts: configuration.accounts.values)
            if deleted > 0 { logger.info("retention sweep", metadata: ["deleted": "\(deleted)"]) }
        } catch {
            logger.warning("retention sweep failed", metadata: ["error": "\(error.message)"])
        }
    }

    /// The media counters and session gauges, now.
    func syncMetrics() {
        metrics.sync(media: media.counters, signalingSessions: sessionCount, mediaSessions: media.sessionCount)
    }
}

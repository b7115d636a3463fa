// The in-memory store's eviction (the edge's default store past its cap), at 10⁵ and 10⁶ rows:
// how long the store takes to shed a tenth of its rows, a step at a time, and how long a reader
// waits meanwhile. Beside it, the anchor: the statement the previous edge evicted with (a window
// sum whose subquery named a column of the outer DELETE, so that SQLite ran it once per row), on
// the same SQLite, at a few thousand rows.
import Foundation
import Logging
import PreflightCore
import PreflightEdge
import SQLiteNIO
import Synchronization

enum EvictionBenchmark {
    /// The rows a step of an events flood adds.
    static let batch = 100

    /// Fills an in-memory store to `rows` rows of call events (one flooding identity holding nine
    /// in ten, a thousand others the rest) under a cap 1 % above what they take, then adds batches
    /// until one crosses the cap and evicts, while a reader lists reports every 5 ms.
    static func measure(rows: Int, logger: Logger) async throws {
        let event = StoredCallEvent(
            party: "caller", event: InsightsEvent(group: "connection", name: "ice-connection-state", timestamp: 1, payload: ["state": "connected"]),
            receivedAt: 0, edge: "ashburn", identity: "flood")
        let unlimited = StoreQuota.Limits(identityBytes: .max / 4, identityRows: .max / 4, accountBytes: .max / 4, accountRows: .max / 4)
        // What one such row costs the store (the longest identity's), from a probe store.
        var longest = event
        longest.identity = "user999"
        let rowBytes = try await probeRowBytes(longest, quota: unlimited, logger: logger)
        let store = ReportStore(location: .sqliteInMemory, logger: logger, memoryLimit: rowBytes * rows / 100 * 101, quota: unlimited)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await store.run() }
            defer { group.cancelAll() }
            try await store.waitUntilReady()
            let fillStart = ContinuousClock.now
            var stored = 0
            func add(_ count: Int) async throws {
                var events = Array(repeating: event, count: count)
                for index in events.indices {
                    events[index].identity = (stored + index) % 10 == 9 ? "user\(((stored + index) / 10) % 1000)" : "flood"
                    events[index].receivedAt = Int64(stored + index)
                }
                try await store.appendEvents(events, callSid: "CA\(stored / 10_000)", account: "AC1")
                stored += count
            }
            while stored < rows { try await add(min(batch, rows - stored)) }
            let fill = seconds(fillStart.duration(to: .now))
            guard store.rowsEvicted == 0 else {
                print("eviction at \(rows) rows: the fill itself evicted \(store.rowsEvicted) rows; no figure")
                return
            }
            // A reader of the same store while batches go on until one evicts.
            let reading = ReaderStats()
            let reader = Task {
                while !Task.isCancelled {
                    let start = ContinuousClock.now
                    _ = try? await store.reports(account: "AC1", filter: ReportFilter(), pageSize: 50)
                    reading.add(seconds(start.duration(to: .now)))
                    try? await Task.sleep(for: .milliseconds(5))
                }
            }
            var eviction = 0.0
            while store.rowsEvicted == 0, stored < rows * 2 {
                let start = ContinuousClock.now
                try await add(batch)
                eviction = seconds(start.duration(to: .now))
            }
            reader.cancel()
            _ = await reader.value
            let evicted = store.rowsEvicted
            let steps = (evicted + store.rowsPerStep - 1) / store.rowsPerStep
            let (reads, slowest) = reading.summary
            print(String(
                format: "eviction at %8d rows (%d B each, filled in %.1f s): %7d rows evicted in %6.3f s = %9.0f rows/s, %d steps of %d rows, %.2f ms a step; a reader meanwhile: %d reads, slowest %.1f ms",
                stored, rowBytes, fill, evicted, eviction, Double(evicted) / max(eviction, 1e-9), steps, store.rowsPerStep,
                eviction / Double(max(steps, 1)) * 1000, reads, slowest * 1000))
        }
    }

    /// The bytes the store counts for one row like `event`.
    static func probeRowBytes(_ event: StoredCallEvent, quota: StoreQuota.Limits, logger: Logger) async throws -> Int {
        let store = ReportStore(location: .sqliteInMemory, logger: logger, memoryLimit: .max, quota: quota)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await store.run() }
            defer { group.cancelAll() }
            try await store.waitUntilReady()
            try await store.appendEvents([event], callSid: "CA0", account: "AC1")
            return store.storedBytes
        }
    }

    /// The anchor: the previous edge's eviction statement, on a table of `rows` reports in an
    /// in-memory SQLite, deleting a tenth of them.
    static func measurePrevious(rows: Int, logger: Logger) async throws {
        let connection = try await SQLiteConnection.open(storage: .memory, logger: logger)
        defer { _ = connection.close() }
        _ = try await connection.query(
            "CREATE TABLE preflight_reports (account TEXT NOT NULL, sid TEXT NOT NULL, received_at BIGINT NOT NULL, body TEXT NOT NULL, stored_bytes BIGINT NOT NULL, PRIMARY KEY (account, sid))")
        _ = try await connection.query("CREATE INDEX preflight_reports_retention ON preflight_reports (received_at)")
        _ = try await connection.query("BEGIN")
        for index in 0..<rows {
            _ = try await connection.query(
                "INSERT INTO preflight_reports VALUES ('AC1', ?, ?, '{}', 700)", [.text("RP\(index)"), .integer(index)])
        }
        _ = try await connection.query("COMMIT")
        let excess = rows / 10 * 700
        let start = ContinuousClock.now
        _ = try await connection.query("""
            DELETE FROM preflight_reports WHERE rowid IN (SELECT rowid FROM (SELECT rowid, SUM(stored_bytes)
                OVER (ORDER BY received_at, rowid) AS running FROM preflight_reports) WHERE running - stored_bytes < ?)
            """, [.integer(excess)])
        let elapsed = seconds(start.duration(to: .now))
        let left = try await connection.query("SELECT COUNT(*) AS n FROM preflight_reports").first?.column("n")?.integer ?? -1
        print(String(
            format: "previous edge's statement at %8d rows: %7d rows evicted in %6.3f s = %9.0f rows/s (one statement, the store held meanwhile)",
            rows, rows - left, elapsed, Double(rows - left) / max(elapsed, 1e-9)))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// Read latencies gathered by the reader task.
final class ReaderStats: Sendable {
    private let latencies = Mutex<[Double]>([])

    func add(_ seconds: Double) { latencies.withLock { $0.append(seconds) } }

    var summary: (count: Int, slowest: Double) {
        latencies.withLock { ($0.count, $0.max() ?? 0) }
    }
}

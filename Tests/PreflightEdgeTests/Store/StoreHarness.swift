import Foundation
import Logging
import PreflightCore
import PreflightEdge
import PreflightTesting

/// Runs a ``ReportStore`` for the length of a test body.
enum StoreHarness {
    /// `body` with an open store at `location`.
    static func withStore<Value: Sendable>(
        _ location: StoreLocation, rowsPerStep: Int = ReportStore.defaultRowsPerStep,
        _ body: @Sendable (ReportStore) async throws -> Value
    ) async throws -> Value {
        let store = ReportStore(location: location, logger: Logger(label: "test.store"), rowsPerStep: rowsPerStep)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await store.run() }
            defer { group.cancelAll() }
            try await store.waitUntilReady()
            return try await body(store)
        }
    }

    /// `body` with each place a store can be: in memory, a file, and (when it can run) a
    /// PostgreSQL database of its own.
    static func locations() -> [String] {
        PostgresTestDatabase.canRun ? ["memory", "file", "postgres"] : ["memory", "file"]
    }

    /// Makes the store location named by `name` and runs `body` with it, then removes it.
    static func withLocation<Value: Sendable>(_ name: String, _ body: @Sendable (StoreLocation) async throws -> Value) async throws -> Value {
        switch name {
        case "file":
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("preflight-store-\(UUID().uuidString).sqlite").path
            defer {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
            return try await body(.sqlite(path: path))
        case "postgres":
            let database = try await PostgresTestDatabase.create()
            return try await withBlockingCleanup({ database.drop() }) {
                try await body(database.location)
            }
        default:
            return try await body(.sqliteInMemory)
        }
    }

    /// A stored report with the given fields.
    static func report(
        sid: String, account: String = "AC1", identity: String = "alice", edge: String = "ashburn", kind: ReportKind = .preflightTest,
        receivedAt: Int64, mos: Double? = 4.3, rtt: Double? = 40, callQuality: Int? = 0, turn: Bool? = false, errorCode: Int? = nil
    ) -> StoredReport {
        StoredReport(
            sid: sid, kind: kind, account: account, identity: identity, edge: edge, receivedAt: receivedAt,
            summary: ReportSummary(
                sid: sid, edge: "roaming", selectedEdge: edge, callQuality: callQuality, isTurnRequired: turn, mos: mos, rtt: rtt,
                jitter: 1.5, errorCode: errorCode),
            body: #"{"callSid":"\#(sid)","note":"ünïcode ✓"}"#)
    }
}

import Foundation
import Logging
import PreflightCore
import SQLKit

extension ReportStore {
    /// The schema, one step a version: a store is brought from the version it records to the
    /// last, each step in its own transaction. The same SQL serves SQLite and PostgreSQL (SQLite
    /// takes PostgreSQL's type names by affinity). A step, once released, never changes.
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE IF NOT EXISTS preflight_reports (
                account TEXT NOT NULL, sid TEXT NOT NULL, kind TEXT NOT NULL, identity TEXT NOT NULL,
                edge TEXT NOT NULL, received_at BIGINT NOT NULL, requested_edge TEXT, selected_edge TEXT,
                call_quality INTEGER, is_turn_required INTEGER, mos DOUBLE PRECISION, rtt DOUBLE PRECISION,
                jitter DOUBLE PRECISION, error_code INTEGER, body TEXT NOT NULL, stored_bytes BIGINT NOT NULL,
                PRIMARY KEY (account, sid))
            """,
            "CREATE INDEX IF NOT EXISTS preflight_reports_received ON preflight_reports (account, received_at)",
            "CREATE INDEX IF NOT EXISTS preflight_reports_retention ON preflight_reports (received_at)",
            """
            CREATE TABLE IF NOT EXISTS preflight_call_events (
                account TEXT NOT NULL, call_sid TEXT NOT NULL, party TEXT NOT NULL, event_group TEXT NOT NULL,
                name TEXT NOT NULL, timestamp BIGINT NOT NULL, payload TEXT NOT NULL, received_at BIGINT NOT NULL,
                seq BIGINT NOT NULL, edge TEXT NOT NULL, stored_bytes BIGINT NOT NULL)
            """,
            "CREATE INDEX IF NOT EXISTS preflight_call_events_call ON preflight_call_events (account, call_sid, received_at, seq)",
            "CREATE INDEX IF NOT EXISTS preflight_call_events_retention ON preflight_call_events (received_at)",
        ],
        [
            // Every row has an owner (the identity whose token stored it): eviction and the
            // retention sweep go by owner, oldest first, an index range at a time.
            "ALTER TABLE preflight_call_events ADD COLUMN identity TEXT NOT NULL DEFAULT ''",
            "CREATE INDEX IF NOT EXISTS preflight_reports_owner ON preflight_reports (account, identity, received_at)",
            "CREATE INDEX IF NOT EXISTS preflight_call_events_owner ON preflight_call_events (account, identity, received_at)",
        ],
    ]

    /// The schema version this code writes.
    public static var schemaVersion: Int { migrations.count }

    /// Brings the schema up to ``schemaVersion``. On PostgreSQL an advisory lock makes edges
    /// that start together migrate one after another.
    /// - Throws: ``PreflightError`` `.storeUnavailable` for a store a newer edge made.
    func migrate(_ database: any SQLDatabase) async throws {
        let isPostgres = database.dialect.name == "postgresql"
        try await database.raw(isPostgres ? "BEGIN" : "BEGIN IMMEDIATE").run()
        do {
            if isPostgres {
                // Any fixed number: the lock every Preflight edge takes to migrate, before it
                // touches the schema (two edges creating a table at once would collide).
                try await database.raw("SELECT pg_advisory_xact_lock(7070701)").run()
            }
            try await database.raw("CREATE TABLE IF NOT EXISTS preflight_schema (version INTEGER NOT NULL PRIMARY KEY, applied_at BIGINT NOT NULL)").run()
            let current = try await database.raw("SELECT MAX(version) AS version FROM preflight_schema")
                .first()?.decode(column: "version", as: Int?.self) ?? 0
            guard current <= Self.schemaVersion else {
                throw PreflightError(
                    code: .storeUnavailable,
                    message: "store: schema version \(current) is newer than this edge's \(Self.schemaVersion); upgrade the edge")
            }
            for version in (current + 1)...max(current + 1, Self.schemaVersion) where version <= Self.schemaVersion {
                for statement in Self.migrations[version - 1] {
                    try await database.raw(SQLQueryString(statement)).run()
                }
                try await database.raw("INSERT INTO preflight_schema (version, applied_at) VALUES (\(bind: version), \(bind: Self.now()))").run()
                logger.info("store migrated", metadata: ["version": "\(version)"])
            }
            try await database.raw("COMMIT").run()
        } catch {
            try? await database.raw("ROLLBACK").run()
            throw error
        }
    }

    /// Milliseconds since the Unix epoch.
    static func now() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }
}

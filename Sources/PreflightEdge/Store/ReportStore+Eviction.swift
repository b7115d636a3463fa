import Logging
import PreflightCore
import SQLKit
import Synchronization

/// Why the store refused to keep something: the ``StoreQuota`` that refused and when it will hold
/// it (the HTTP layer's `Retry-After`).
public struct StoreQuotaRefusal: Error, Sendable, Hashable {
    /// Whose allowance refused.
    public var scope: StoreQuota.Scope
    /// Seconds until that allowance holds what was refused; infinite for more than a window's.
    public var retryAfter: Double
}

extension ReportStore {
    /// Rows one eviction or retention statement deletes at most by default: each statement is
    /// short, and other queries run between two.
    public static let defaultRowsPerStep = 256

    /// Takes `bytes` in `rows` from `owner`'s quota.
    /// - Throws: ``PreflightError`` `.storeQuotaExceeded` (with a ``StoreQuotaRefusal``) when the
    ///   identity's or the account's allowance does not hold it.
    func takeQuota(_ owner: StoreLedger.Owner, bytes: Int, rows: Int) throws(PreflightError) {
        let now = quotaEpoch.duration(to: .now)
        let seconds = Double(now.components.seconds) + Double(now.components.attoseconds) / 1e18
        let decision = quota.withLock { $0.admit(owner, bytes: bytes, rows: rows, at: seconds) }
        guard case .refused(let scope, let retryAfter) = decision else { return }
        let limits = quota.withLock { $0.limits }
        let allowance =
            scope == .identity
            ? "\(limits.identityBytes) bytes and \(limits.identityRows) rows"
            : "\(limits.accountBytes) bytes and \(limits.accountRows) rows"
        let when = retryAfter.isFinite ? "; room again in \(Int(min(retryAfter, 1e9).rounded(.up))) s" : "; it is larger than a whole window's allowance"
        throw PreflightError(
            code: .storeQuotaExceeded,
            message: "store: this \(scope.rawValue) stored its allowance of \(allowance) per \(limits.window)\(when)",
            underlying: StoreQuotaRefusal(scope: scope, retryAfter: retryAfter))
    }

    /// Counts what `owner` stored; an in-memory store past ``memoryLimit`` then evicts (one
    /// eviction at a time; inserts meanwhile only count). What was stored stays stored whatever
    /// the eviction meets: a failed step is logged, and the next insert past the cap tries again.
    func charge(_ owner: StoreLedger.Owner, in table: StoreLedger.Table, bytes: Int, rows: Int) async {
        // Only an in-memory store is capped: a file or PostgreSQL store is bounded by the quotas
        // and the retention instead (its ledger would grow with every identity ever seen).
        guard case .sqliteInMemory = location else { return }
        let total = ledger.withLock { ledger in
            ledger.record(owner, in: table, bytes: bytes, rows: rows)
            return ledger.totalBytes
        }
        guard total > memoryLimit else { return }
        guard evicting.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else { return }
        defer { evicting.store(false, ordering: .releasing) }
        do {
            try await evict()
        } catch {
            logger.warning("store eviction stopped", metadata: ["error": "\(error.message)"])
        }
    }

    /// Evicts an in-memory store down to 90 % of its limit, heaviest owner first
    /// (``StoreLedger/heaviest()``), oldest rows first: each step deletes at most ``rowsPerStep``
    /// rows, and no more than the owner's average row size says the excess needs (a heavy owner of
    /// large reports loses what brings the store under its target, not 256 of them). Each step is
    /// an index range scan of the owner's rows, and other queries run between two steps.
    func evict() async throws(PreflightError) {
        let target = memoryLimit / 10 * 9
        while true {
            let next = ledger.withLock { ledger -> (owner: StoreLedger.Owner, table: StoreLedger.Table, rows: Int)? in
                let excess = ledger.totalBytes - target
                guard excess > 0, let (owner, table) = ledger.heaviest() else { return nil }
                let holding = ledger.holding(of: owner, in: table)
                let average = max(1, holding.bytes / max(1, holding.rows))
                return (owner, table, min(rowsPerStep, excess / average + 1))
            }
            guard let (owner, table, rows) = next else { return }
            let freed = try await deleteOldest(rows, of: owner, in: table)
            ledger.withLock { ledger in
                if freed.rows == 0 {
                    // The ledger counted rows the table no longer has: forget them.
                    let holding = ledger.holding(of: owner, in: table)
                    ledger.record(owner, in: table, bytes: -holding.bytes, rows: -holding.rows)
                } else {
                    ledger.record(owner, in: table, bytes: -freed.bytes, rows: -freed.rows)
                }
            }
            evictedRows.add(freed.rows, ordering: .relaxed)
        }
    }

    /// Deletes `owner`'s oldest `count` rows of `table`.
    /// - Returns: the bytes and rows deleted.
    private func deleteOldest(_ count: Int, of owner: StoreLedger.Owner, in table: StoreLedger.Table) async throws(PreflightError) -> (bytes: Int, rows: Int) {
        let (name, step) = (Self.tableName(table), max(1, count))
        let rows = try await withDatabase { database in
            try await database.raw("""
                DELETE FROM \(unsafeRaw: name) WHERE rowid IN (SELECT rowid FROM \(unsafeRaw: name)
                    WHERE account = \(bind: owner.account) AND identity = \(bind: owner.identity)
                    ORDER BY received_at, rowid LIMIT \(literal: step))
                RETURNING stored_bytes
                """).all()
        }
        let bytes = rows.reduce(0) { $0 + ((try? $1.decode(column: "stored_bytes", as: Int.self)) ?? 0) }
        return (bytes, rows.count)
    }

    /// Deletes the reports and call events of `accounts` received before `cutoff` (ms since the
    /// epoch): the retention sweep of an edge, which touches only the accounts it serves, so that
    /// edges sharing a database each keep their own accounts' retention. ``rowsPerStep`` rows a
    /// statement, other queries running between two.
    /// - Returns: how many reports went.
    @discardableResult
    public func deleteReports(receivedBefore cutoff: Int64, accounts: some Sequence<String>) async throws(PreflightError) -> Int {
        var reports = 0
        for account in Set(accounts).sorted() {
            for table in [StoreLedger.Table.reports, .events] {
                while true {
                    let deleted = try await deleteExpired(of: account, in: table, before: cutoff)
                    if table == .reports { reports += deleted }
                    if deleted < rowsPerStep { break }
                }
            }
        }
        return reports
    }

    /// One step of the retention sweep: at most ``rowsPerStep`` of `account`'s rows of `table`
    /// received before `cutoff`.
    /// - Returns: the rows deleted.
    private func deleteExpired(of account: String, in table: StoreLedger.Table, before cutoff: Int64) async throws(PreflightError) -> Int {
        let (name, step) = (Self.tableName(table), rowsPerStep)
        let rows = try await withDatabase { database in
            // SQLite names a row by rowid, PostgreSQL by ctid.
            let row = database.dialect.name == "postgresql" ? "ctid" : "rowid"
            return try await database.raw("""
                DELETE FROM \(unsafeRaw: name) WHERE \(unsafeRaw: row) IN (SELECT \(unsafeRaw: row) FROM \(unsafeRaw: name)
                    WHERE account = \(bind: account) AND received_at < \(bind: cutoff) LIMIT \(literal: step))
                RETURNING identity, stored_bytes
                """).all()
        }
        if case .sqliteInMemory = location {
            ledger.withLock { ledger in
                for row in rows {
                    let identity = (try? row.decode(column: "identity", as: String.self)) ?? ""
                    let bytes = (try? row.decode(column: "stored_bytes", as: Int.self)) ?? 0
                    ledger.record(StoreLedger.Owner(account: account, identity: identity), in: table, bytes: -bytes, rows: -1)
                }
            }
        }
        return rows.count
    }

    static func tableName(_ table: StoreLedger.Table) -> String {
        table == .reports ? "preflight_reports" : "preflight_call_events"
    }
}

import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresKit
import PostgresNIO
import PreflightCore
import SQLKit
import SQLiteKit
import SQLiteNIO
import Synchronization

/// The edge's store of reports and call Insights events: SQLite (a file, or in memory) for one
/// edge, PostgreSQL for many edges that share it. One SQL layer (SQLKit) writes the queries once
/// for both; the schema is versioned (``ReportStore/migrate(_:)``) and old reports go by
/// ``deleteReports(receivedBefore:)`` (`--retention-days`).
///
/// ``run()`` opens the database, brings its schema up to date and serves until its task is
/// cancelled; every query waits until then, and fails with 70701 when the store could not open.
public final class ReportStore: Sendable {
    /// Where the data lives.
    public let location: StoreLocation
    /// The longest a query may take before it fails with 70701; 10 s by default.
    public let queryTimeout: Duration
    /// The most bytes of reports and call events an in-memory store keeps (each row counted as
    /// ``storedBytes(_:)`` counts it); past it the heaviest owner's oldest rows go (``evict()``).
    /// 64 MiB by default. (A file or PostgreSQL store keeps what ``EdgeConfiguration/reportRetention``
    /// says, within the quotas.)
    public let memoryLimit: Int
    /// What each owner holds in an in-memory store.
    let ledger = Mutex(StoreLedger())
    /// What each identity and account may still store in the window.
    let quota: Mutex<StoreQuota>
    let quotaEpoch = ContinuousClock.now
    /// Rows an in-memory store evicted so far.
    let evictedRows = Atomic<Int>(0)
    /// Rows one eviction or retention statement deletes at most.
    public let rowsPerStep: Int
    let logger: Logger
    private let postgres: PostgresClient?
    private let state = Mutex<State>(.opening([:], nextID: 0))
    /// Orders call events stored in the same millisecond.
    let eventSequence = Atomic<Int64>(0)

    private enum State {
        case opening([Int: CheckedContinuation<Void, any Error>], nextID: Int)
        case ready(SQLiteConnection?)
        case failed(PreflightError)
    }
    /// Queries running now: the connection closes only when they are done.
    let inFlight = Atomic<Int>(0)
    /// Bytes of reports and call events an in-memory store holds, as counted for ``memoryLimit``.
    public var storedBytes: Int { ledger.withLock { $0.totalBytes } }
    /// Rows an in-memory store evicted since it opened.
    public var rowsEvicted: Int { evictedRows.load(ordering: .relaxed) }

    /// Whether an in-memory eviction runs (one at a time).
    let evicting = Atomic<Bool>(false)

    /// Creates a store; nothing is opened until ``run()``.
    /// - Parameters:
    ///   - quota: what each identity and account may store per window (``StoreQuota``).
    ///   - rowsPerStep: rows one eviction or retention statement deletes at most (at least 1).
    public init(
        location: StoreLocation, logger: Logger, queryTimeout: Duration = .seconds(10), memoryLimit: Int = 64 << 20,
        quota: StoreQuota.Limits = StoreQuota.Limits(), rowsPerStep: Int = ReportStore.defaultRowsPerStep
    ) {
        self.rowsPerStep = max(1, rowsPerStep)
        self.location = location
        self.logger = logger
        self.queryTimeout = queryTimeout
        self.memoryLimit = memoryLimit
        self.quota = Mutex(StoreQuota(limits: quota))
        if case .postgres(let target) = location {
            let tls: PostgresClient.Configuration.TLS =
                switch target.tls {
                case .disable: .disable
                case .prefer: .prefer(.makeClientConfiguration())
                case .require: .require(.makeClientConfiguration())
                }
            var configuration = PostgresClient.Configuration(
                host: target.host, port: target.port, username: target.username, password: target.password,
                database: target.database, tls: tls)
            configuration.options.connectTimeout = .seconds(5)
            configuration.options.maximumConnections = 8
            // The server cancels a statement at the query timeout (SQLite's queries are local and
            // bounded by LIMITs; a late one is reported as 70701 when it ends).
            let milliseconds = queryTimeout.components.seconds * 1000 + queryTimeout.components.attoseconds / 1_000_000_000_000_000
            configuration.options.additionalStartupParameters = [("statement_timeout", String(max(milliseconds, 1)))]
            postgres = PostgresClient(configuration: configuration, backgroundLogger: logger)
        } else {
            postgres = nil
        }
    }

    /// Opens the database, migrates it and serves queries until the task is cancelled, then
    /// closes it.
    /// - Throws: ``PreflightError`` `.storeUnavailable` when it cannot be opened or migrated.
    public func run() async throws {
        if let postgres {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await postgres.run() }
                defer { group.cancelAll() }
                try await open(connection: nil)
                try await Self.sleepUntilCancelled()
                await close()
            }
        } else {
            let storage: SQLiteConnection.Storage =
                switch location {
                case .sqlite(let path): .file(path: path)
                default: .memory
                }
            // The connection's statements run on a thread of its own, not on NIO's shared pool:
            // a statement that waits for a lock (up to busy_timeout) or runs long holds up no
            // other store and none of the process's file I/O.
            let pool = NIOThreadPool(numberOfThreads: 1)
            pool.start()
            let connection: SQLiteConnection
            do {
                connection = try await SQLiteConnection.open(
                    storage: storage, threadPool: pool, logger: logger, on: MultiThreadedEventLoopGroup.singleton.any())
            } catch {
                try? await pool.shutdownGracefully()
                let failure = PreflightError(code: .storeUnavailable, message: "store: cannot open \(location)", underlying: error)
                fail(failure)
                throw failure
            }
            do {
                try await open(connection: connection)
                try await Self.sleepUntilCancelled()
            } catch {
                try? await connection.close().get()  // the future form: the async one gives up in a cancelled task
                try? await pool.shutdownGracefully()
                throw error
            }
            await close()
            try? await connection.close().get()  // the future form: the async one gives up in a cancelled task
            try? await pool.shutdownGracefully()
        }
    }

    /// Refuses new queries (70701) and waits, 10 s at most, for those running to end, so that the
    /// connection never closes under a statement.
    private func close() async {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            defer { state = .failed(PreflightError(code: .storeUnavailable, message: "store: closed")) }
            if case .opening(let waiters, _) = state { return Array(waiters.values) }
            return []
        }
        for waiter in waiters { waiter.resume(throwing: PreflightError(code: .storeUnavailable, message: "store: closed")) }
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while inFlight.load(ordering: .acquiring) > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10), tolerance: .milliseconds(5))
        }
    }

    /// Waits until the store is open and migrated.
    /// - Throws: ``PreflightError`` `.storeUnavailable` when it could not be, `.cancelled` when the
    ///   waiting task is cancelled.
    public func waitUntilReady() async throws(PreflightError) {
        let id = Mutex<Int?>(nil)
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let result = state.withLock { state -> Result<Void, any Error>? in
                        switch state {
                        case .opening(var waiters, let next):
                            guard !Task.isCancelled else { return .failure(CancellationError()) }
                            waiters[next] = continuation
                            state = .opening(waiters, nextID: next + 1)
                            id.withLock { $0 = next }
                            return nil
                        case .ready: return .success(())
                        case .failed(let error): return .failure(error)
                        }
                    }
                    if let result { continuation.resume(with: result) }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                    guard case .opening(var waiters, let next) = state, let key = id.withLock({ $0 }) else { return nil }
                    let waiter = waiters.removeValue(forKey: key)
                    state = .opening(waiters, nextID: next)
                    return waiter
                }
                waiter?.resume(throwing: CancellationError())
            }
        } catch let error as PreflightError {
            throw error
        } catch is CancellationError {
            throw PreflightError(code: .cancelled, message: "store: stopped waiting for the store to open")
        } catch {
            throw PreflightError(code: .storeUnavailable, message: "store: \(error)")
        }
    }

    private func open(connection: SQLiteConnection?) async throws {
        do {
            try await withTimeout {
                if let connection {
                    try await self.prepareSQLite(connection.sql())
                    try await self.migrate(connection.sql())
                } else if let postgres = self.postgres {
                    try await postgres.withConnection { try await self.migrate($0.sql()) }
                }
            }
        } catch {
            let failure = (error as? PreflightError)
                ?? PreflightError(code: .storeUnavailable, message: "store: cannot open \(location): \(String(reflecting: error))", underlying: error)
            fail(failure)
            throw failure
        }
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard case .opening(let waiters, _) = state else { return [] }
            state = .ready(connection)
            return Array(waiters.values)
        }
        logger.info("store open", metadata: ["location": "\(location)"])
        for waiter in waiters { waiter.resume() }
    }

    private func fail(_ error: PreflightError) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard case .opening(let waiters, _) = state else { return [] }
            state = .failed(error)
            return Array(waiters.values)
        }
        for waiter in waiters { waiter.resume(throwing: error) }
    }

    /// WAL journal (readers do not block the writer), `synchronous=NORMAL` (a crash can lose
    /// the last commits, not corrupt the file), a 5 s busy wait.
    private func prepareSQLite(_ database: any SQLDatabase) async throws {
        if case .sqlite = location {
            try await database.raw("PRAGMA journal_mode=WAL").run()
            try await database.raw("PRAGMA synchronous=NORMAL").run()
        }
        try await database.raw("PRAGMA busy_timeout=5000").run()
    }

    /// Runs `body` on a database connection, within ``queryTimeout``.
    /// - Throws: ``PreflightError``: what `body` throws as one, 70701 for anything else.
    func withDatabase<Value: Sendable>(
        _ body: @escaping @Sendable (any SQLDatabase) async throws -> Value
    ) async throws(PreflightError) -> Value {
        try await waitUntilReady()
        // Counted under the lock that closing takes, so that a query either starts before the
        // store closes (and is waited for) or is refused.
        let (open, sqlite) = state.withLock { state -> (Bool, SQLiteConnection?) in
            guard case .ready(let connection) = state else { return (false, nil) }
            inFlight.add(1, ordering: .acquiring)
            return (true, connection)
        }
        guard open else { throw PreflightError(code: .storeUnavailable, message: "store: closed") }
        defer { inFlight.subtract(1, ordering: .releasing) }
        let postgres = self.postgres
        do {
            return try await withTimeout {
                if let sqlite { return try await body(sqlite.sql()) }
                guard let postgres else { throw PreflightError(code: .storeUnavailable, message: "store: not open") }
                return try await postgres.withConnection { try await body($0.sql()) }
            }
        } catch let error as PreflightError {
            throw error
        } catch {
            logger.warning("store query failed", metadata: ["error": "\(String(reflecting: error))"])
            throw PreflightError(code: .storeUnavailable, message: "store: the query failed", underlying: error)
        }
    }

    private func withTimeout<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let timeout = queryTimeout
        return try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw PreflightError(code: .storeUnavailable, message: "store: no answer within \(timeout)")
            }
            return value
        }
    }

    private static func sleepUntilCancelled() async throws {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
        }
    }
}

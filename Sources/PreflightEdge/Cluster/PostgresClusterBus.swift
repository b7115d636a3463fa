import Foundation
import Logging
import PostgresNIO
import PreflightCore
import Synchronization

/// Carries ``ClusterMessage``s between the edges that share a PostgreSQL database, and keeps
/// the registrations table (docs/protocol.md, "Between edges").
///
/// - **Messages** go as `NOTIFY` on the addressee's channel (`preflight_` and a hash of its
///   name; registrations on `preflight_all`), sent in order on one connection and received on
///   another that only listens. A notification carries at most 8,000 bytes: a longer message
///   (a user-defined message of 10 KB) goes into the mailbox table, and the notification
///   carries `#` and its row's id; the addressee takes the row (`DELETE … RETURNING`: once).
///   Delivery is at most once: a message sent while the addressee does not listen is lost, and
///   each message's expiry and the calls' own timeouts cover that.
/// - **Registrations**: a row per registered session (session, account, identity, edge,
///   expiry); this edge refreshes its rows' expiry every ``beatInterval`` and the other edges
///   reload theirs (``EdgeCluster/replaceRegistrations(_:announcedSince:)``), so an edge that
///   died leaves nothing routable once its rows expire (``registrationLifetime``).
/// - **Edges**: a heartbeat row per edge (name, last beat).
public final class PostgresClusterBus: Sendable {
    let cluster: EdgeCluster
    let router: CallRouter
    let client: PostgresClient
    let logger: Logger
    /// Yields once: `nil` when this edge listens and its sending connection is up, else why not.
    private let readiness: (stream: AsyncStream<(any Error)?>, continuation: AsyncStream<(any Error)?>.Continuation)
    /// The parts still to come up before ``waitUntilReady()`` returns: listening and sending.
    private let partsComing = Mutex<Set<String>>(["listening", "sending"])

    /// How often this edge beats, refreshes its registrations and reloads the others'.
    static let beatInterval: Duration = .seconds(2)
    /// How long a registration row lives without a refresh, milliseconds.
    static let registrationLifetime: Int64 = 10_000
    /// An edge whose last beat is older than this is dead, milliseconds: its calls end here
    /// (31005) and its registrations go (three beats missed).
    static let deadAfter: Int64 = 6_000
    /// The longest notification payload PostgreSQL takes is 8,000 bytes; longer go by mailbox.
    static let maximumNotificationBytes = 7_900
    /// The channel every edge listens on: registrations and unregistrations.
    public static let broadcastChannel = "preflight_all"

    init(location: StoreLocation.PostgresLocation, cluster: EdgeCluster, router: CallRouter, logger: Logger) {
        let tls: PostgresClient.Configuration.TLS =
            switch location.tls {
            case .disable: .disable
            case .prefer: .prefer(.makeClientConfiguration())
            case .require: .require(.makeClientConfiguration())
            }
        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.username, password: location.password,
            database: location.database, tls: tls)
        configuration.options.connectTimeout = .seconds(5)
        // One connection listens, one sends in order, one beats and reloads.
        configuration.options.maximumConnections = 4
        configuration.options.additionalStartupParameters = [("statement_timeout", "5000")]
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        readiness = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.cluster = cluster
        self.router = router
        self.logger = logger
    }

    /// The channel an edge listens on: a hash of its name (any text), so that it is a valid
    /// identifier.
    public static func channel(of edge: String) -> String {
        // FNV-1a, 64 bits: names that collide would share a channel, and each edge still takes
        // only what is addressed to it by name.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in edge.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "preflight_" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Creates the tables, forgets this edge's registrations of an earlier life, and runs until
    /// the task is cancelled: listening, sending, beating. A lost connection is made again
    /// after a second.
    func run() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await self.client.run() }
            defer { group.cancelAll() }
            do {
                try await prepare()
            } catch {
                readiness.continuation.yield(error)
                throw error
            }
            group.addTask { await self.keepRunning("listening") { try await self.listen() } }
            group.addTask { await self.keepRunning("sending") { try await self.sendQueued() } }
            group.addTask { await self.keepRunning("beating") { try await self.beat() } }
            try await group.next()
        }
    }

    /// Returns once this edge listens for the others' messages (their registrations loaded) and
    /// can send its own, so that nothing it announces waits for a connection; throws what stopped
    /// ``run()`` before that, or after `limit`. One caller: the edge, before it serves.
    func waitUntilReady(limit: Duration = .seconds(15)) async throws {
        let readiness = readiness.stream
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await error in readiness {
                    if let error { throw error }
                    return
                }
            }
            group.addTask {
                try await Task.sleep(for: limit)
                throw PreflightError(code: .storeUnavailable, message: "no connection to listen and send on within \(limit)")
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// `part` is up (again, after a reconnection: nothing changes); the last makes the bus ready.
    private func partCameUp(_ part: String) {
        let last = partsComing.withLock { parts in parts.remove(part) != nil && parts.isEmpty }
        if last { readiness.continuation.yield(nil) }
    }

    private func keepRunning(_ what: String, _ body: @Sendable () async throws -> Void) async {
        while !Task.isCancelled {
            do {
                try await body()
            } catch {
                if Task.isCancelled { return }
                logger.warning("cluster: \(what) failed", metadata: ["error": "\(UntrustedText.excerpt("\(String(reflecting: error))", limit: 300))"])
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    private func prepare() async throws {
        try await client.withConnection { connection in
            // One edge creates the tables at a time: concurrent CREATE … IF NOT EXISTS can
            // collide. The lock is the transaction's: it goes with the commit (or the failure).
            _ = try await connection.query("BEGIN", logger: logger)
            _ = try await connection.query("SELECT pg_advisory_xact_lock(7236814)", logger: logger)
            for statement: PostgresQuery in [
                "CREATE TABLE IF NOT EXISTS preflight_edges (name TEXT PRIMARY KEY, beat_at BIGINT NOT NULL, draining BOOLEAN NOT NULL DEFAULT FALSE)",
                "CREATE TABLE IF NOT EXISTS preflight_registrations (session TEXT PRIMARY KEY, account TEXT NOT NULL, identity TEXT NOT NULL, edge TEXT NOT NULL, expires_at BIGINT NOT NULL)",
                "CREATE INDEX IF NOT EXISTS preflight_registrations_by_edge ON preflight_registrations (edge)",
                "CREATE TABLE IF NOT EXISTS preflight_mailbox (id BIGSERIAL PRIMARY KEY, edge TEXT NOT NULL, payload TEXT NOT NULL, expires_at BIGINT NOT NULL)",
            ] {
                _ = try await connection.query(statement, logger: logger)
            }
            _ = try await connection.query("DELETE FROM preflight_registrations WHERE edge = \(cluster.edgeName)", logger: logger)
            _ = try await connection.query("COMMIT", logger: logger)
        }
    }

    /// Listens on this edge's channel and the broadcast channel, acting on each message.
    private func listen() async throws {
        try await client.withConnection { connection in
            try await connection.listen(on: Self.channel(of: cluster.edgeName)) { own in
                try await connection.listen(on: Self.broadcastChannel) { all in
                    // Registrations announced before the listening began are in the table.
                    try await reload(connection)
                    partCameUp("listening")
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { for try await notification in own { await self.received(notification.payload) } }
                        group.addTask { for try await notification in all { await self.received(notification.payload) } }
                        try await group.next()
                        group.cancelAll()
                    }
                }
            }
        }
    }

    /// A notification's payload: a message, or `#` and the id of a mailbox row for this edge.
    private func received(_ payload: String) async {
        var text = payload
        if payload.hasPrefix("#") {
            guard let id = Int64(payload.dropFirst()) else { return cluster.countMalformed() }
            do {
                let rows = try await client.query(
                    "DELETE FROM preflight_mailbox WHERE id = \(id) AND edge = \(cluster.edgeName) RETURNING payload", logger: logger)
                guard let row = try await rows.collect().first, let body = try? row.decode(String.self) else { return cluster.countMalformed() }
                text = body
            } catch {
                logger.debug("cluster: mailbox read failed", metadata: ["error": "\(error)"])
                return
            }
        }
        do throws(PreflightError) {
            let message = try ClusterMessage(jsonText: text)
            cluster.receive(message, router: router, now: EdgeCluster.unixMilliseconds())
        } catch {
            cluster.countMalformed()
            logger.info("cluster: message refused", metadata: ["reason": "\(UntrustedText.excerpt(error.message, limit: 200))"])
        }
    }

    /// Sends what the cluster queued, in order, on one connection.
    private func sendQueued() async throws {
        try await client.withConnection { connection in
            partCameUp("sending")
            for await _ in cluster.outgoingReady {
                for message in cluster.takeOutgoing() {
                    try await send(message, on: connection)
                }
            }
        }
    }

    private func send(_ message: ClusterMessage, on connection: PostgresConnection) async throws {
        let text = message.jsonText()
        let channel = message.to.map(Self.channel(of:)) ?? Self.broadcastChannel
        switch message.kind {
        case .registered:
            let expires = EdgeCluster.unixMilliseconds() + Self.registrationLifetime
            _ = try await connection.query(
                """
                WITH row AS (INSERT INTO preflight_registrations (session, account, identity, edge, expires_at)
                VALUES (\(message.session ?? ""), \(message.account ?? ""), \(message.identity ?? ""), \(cluster.edgeName), \(expires))
                ON CONFLICT (session) DO UPDATE SET expires_at = EXCLUDED.expires_at RETURNING 1)
                SELECT pg_notify(\(channel), \(text)) FROM row
                """, logger: logger)
        case .unregistered:
            _ = try await connection.query(
                """
                WITH row AS (DELETE FROM preflight_registrations WHERE session = \(message.session ?? "") AND edge = \(cluster.edgeName) RETURNING 1)
                SELECT pg_notify(\(channel), \(text))
                """, logger: logger)
        default:
            if text.utf8.count <= Self.maximumNotificationBytes {
                _ = try await connection.query("SELECT pg_notify(\(channel), \(text))", logger: logger)
            } else if let to = message.to {
                _ = try await connection.query(
                    """
                    WITH row AS (INSERT INTO preflight_mailbox (edge, payload, expires_at) VALUES (\(to), \(text), \(message.expiresAt)) RETURNING id)
                    SELECT pg_notify(\(channel), '#' || id) FROM row
                    """, logger: logger)
            }
        }
    }

    /// Every ``beatInterval``: this edge's heartbeat and its registrations' expiry, the expired
    /// rows gone, the other edges' registrations reloaded.
    private func beat() async throws {
        try await client.withConnection { connection in
            while !Task.isCancelled {
                let now = EdgeCluster.unixMilliseconds()
                _ = try await connection.query(
                    """
                    INSERT INTO preflight_edges (name, beat_at) VALUES (\(cluster.edgeName), \(now))
                    ON CONFLICT (name) DO UPDATE SET beat_at = EXCLUDED.beat_at
                    """, logger: logger)
                _ = try await connection.query(
                    "UPDATE preflight_registrations SET expires_at = \(now + Self.registrationLifetime) WHERE edge = \(cluster.edgeName)",
                    logger: logger)
                _ = try await connection.query("DELETE FROM preflight_registrations WHERE expires_at < \(now)", logger: logger)
                _ = try await connection.query("DELETE FROM preflight_mailbox WHERE expires_at < \(now)", logger: logger)
                let silent = try await connection.query(
                    "SELECT name FROM preflight_edges WHERE name <> \(cluster.edgeName) AND beat_at < \(now - Self.deadAfter)", logger: logger)
                var dead: [String] = []
                for try await name in silent.decode(String.self) { dead.append(name) }
                if !dead.isEmpty {
                    // Any edge may clear a dead one's rows: its sessions are gone with it.
                    _ = try await connection.query(
                        "DELETE FROM preflight_registrations WHERE edge = ANY(\(dead)) AND expires_at < \(now)", logger: logger)
                }
                router.edgesDied(Set(dead))
                try await reload(connection)
                try await Task.sleep(for: Self.beatInterval)
            }
        }
    }

    /// Marks this edge draining in its heartbeat row.
    func markDraining() async {
        do {
            _ = try await client.query("UPDATE preflight_edges SET draining = TRUE WHERE name = \(cluster.edgeName)", logger: logger)
        } catch {
            logger.warning("cluster: cannot mark the edge draining", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    /// Reloads the other edges' registrations that have not expired.
    private func reload(_ connection: PostgresConnection) async throws {
        let started = EdgeCluster.unixMilliseconds()
        let rows = try await connection.query(
            """
            SELECT session, account, identity, edge FROM preflight_registrations
            WHERE edge <> \(cluster.edgeName) AND expires_at >= \(started) LIMIT \(EdgeCluster.maximumRemoteRegistrations)
            """, logger: logger)
        var registrations: [(session: String, account: String, identity: String, edge: String)] = []
        for try await (session, account, identity, edge) in rows.decode((String, String, String, String).self) {
            registrations.append((session, account, identity, edge))
        }
        cluster.replaceRegistrations(registrations, announcedSince: started)
    }
}

import Foundation
import PreflightCore
import SQLKit
import Synchronization

extension ReportStore {
    /// The most events read back for one call.
    public static let maximumEventsPerCall = 10_000

    /// Stores a call's Insights events, each within its poster's quota (``StoreQuota``).
    /// - Throws: ``PreflightError`` `.storeQuotaExceeded` when a poster's identity or account
    ///   stored its window's allowance (nothing of the batch is stored), `.storeUnavailable` when
    ///   the store fails.
    public func appendEvents(_ events: [StoredCallEvent], callSid: String, account: String) async throws(PreflightError) {
        guard !events.isEmpty else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let payloads = events.map { String(decoding: (try? encoder.encode($0.event.payload)) ?? Data("{}".utf8), as: UTF8.self) }
        let sizes = zip(events, payloads).map { Self.storedBytes($0, payload: $1, callSid: callSid, account: account) }
        // What each poster adds (a batch is one party's, but nothing here relies on it).
        var owners: [StoreLedger.Owner: (bytes: Int, rows: Int)] = [:]
        for (event, size) in zip(events, sizes) {
            owners[StoreLedger.Owner(account: account, identity: event.identity), default: (0, 0)].bytes += size
            owners[StoreLedger.Owner(account: account, identity: event.identity), default: (0, 0)].rows += 1
        }
        for (owner, added) in owners { try takeQuota(owner, bytes: added.bytes, rows: added.rows) }
        try await withDatabase { database in
            var rows: [SQLQueryString] = []
            for ((event, payload), size) in zip(zip(events, payloads), sizes) {
                // The order they arrived in, for events received within the same millisecond.
                let sequence = self.eventSequence.add(1, ordering: .relaxed).newValue
                rows.append("""
                    (\(bind: account), \(bind: callSid), \(bind: event.party), \(bind: event.event.group), \(bind: event.event.name),
                    \(bind: event.event.timestamp), \(bind: payload), \(bind: event.receivedAt), \(bind: sequence), \(bind: event.edge),
                    \(bind: event.identity), \(bind: size))
                    """)
            }
            try await database.raw("""
                INSERT INTO preflight_call_events (account, call_sid, party, event_group, name, timestamp, payload, received_at, seq, edge, identity, stored_bytes)
                VALUES \(rows.joined(separator: ", "))
                """).run()
        }
        for (owner, added) in owners { await charge(owner, in: .events, bytes: added.bytes, rows: added.rows) }
    }

    /// What an event costs a store: every text column (payload, names, call sid, party, edge,
    /// account, identity), the copies of the account, call sid and identity in the indexes, and
    /// a row's overhead (``eventRowOverhead``).
    static func storedBytes(_ event: StoredCallEvent, payload: String, callSid: String, account: String) -> Int {
        let columns = [payload, event.event.name, event.event.group, callSid, event.party, event.edge, account, event.identity]
            .reduce(0) { $0 + $1.utf8.count }
        // (account, call_sid, received_at, seq), (account, identity, received_at).
        let indexCopies = 2 * account.utf8.count + callSid.utf8.count + event.identity.utf8.count
        return columns + indexCopies + eventRowOverhead
    }

    /// An event row's bytes besides its text: four numeric columns, the row's header, the entries
    /// of its three indexes.
    static let eventRowOverhead = 256

    /// A call's events for `account`, in the order they arrived (at most ``maximumEventsPerCall``).
    public func events(account: String, callSid: String) async throws(PreflightError) -> [StoredCallEvent] {
        let rows = try await withDatabase { database in
            try await database.raw("""
                SELECT party, event_group, name, timestamp, payload, received_at, edge FROM preflight_call_events
                WHERE account = \(bind: account) AND call_sid = \(bind: callSid)
                ORDER BY received_at, seq LIMIT \(literal: Self.maximumEventsPerCall)
                """).all(decoding: EventRow.self, with: Self.rowDecoder)
        }
        let decoder = JSONDecoder()
        return rows.map { row in
            let payload = (try? decoder.decode([String: String].self, from: Data(row.payload.utf8))) ?? [:]
            return StoredCallEvent(
                party: row.party, event: InsightsEvent(group: row.eventGroup, name: row.name, timestamp: row.timestamp, payload: payload),
                receivedAt: row.receivedAt, edge: row.edge)
        }
    }
}

/// A `preflight_call_events` row.
struct EventRow: Decodable {
    var party: String
    var eventGroup: String
    var name: String
    var timestamp: Int64
    var payload: String
    var receivedAt: Int64
    var edge: String
}

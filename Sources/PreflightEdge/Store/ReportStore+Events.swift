import Foundation
import PreflightCore
import SQLKit
import Synchronization

extension ReportStore {
    /// The most events read back for one call.
    public static let maximumEventsPerCall = 10_000

    /// Stores a call's Insights events.
    public func appendEvents(_ events: [StoredCallEvent], callSid: String, account: String) async throws(PreflightError) {
        guard !events.isEmpty else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let payloads = events.map { String(decoding: (try? encoder.encode($0.event.payload)) ?? Data("{}".utf8), as: UTF8.self) }
        try await withDatabase { database in
            var rows: [SQLQueryString] = []
            for (event, payload) in zip(events, payloads) {
                // The order they arrived in, for events received within the same millisecond.
                let sequence = self.eventSequence.add(1, ordering: .relaxed).newValue
                rows.append("""
                    (\(bind: account), \(bind: callSid), \(bind: event.party), \(bind: event.event.group), \(bind: event.event.name),
                    \(bind: event.event.timestamp), \(bind: payload), \(bind: event.receivedAt), \(bind: sequence), \(bind: event.edge),
                    \(bind: Self.storedBytes(event, payload: payload, callSid: callSid)))
                    """)
            }
            try await database.raw("""
                INSERT INTO preflight_call_events (account, call_sid, party, event_group, name, timestamp, payload, received_at, seq, edge, stored_bytes)
                VALUES \(rows.joined(separator: ", "))
                """).run()
        }
        try await charge(bytes: zip(events, payloads).reduce(0) { $0 + Self.storedBytes($1.0, payload: $1.1, callSid: callSid) })
    }

    /// What an event costs an in-memory store: its text and a row's overhead.
    static func storedBytes(_ event: StoredCallEvent, payload: String, callSid: String) -> Int {
        payload.utf8.count + event.event.name.utf8.count + event.event.group.utf8.count + callSid.utf8.count + 256
    }

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

import PreflightCore
import Synchronization

/// Who may post Insights events to the edge's recent calls, and how many each call took: the
/// events themselves go to the store (``ReportStore``, `GET /v1/calls/{sid}/events`). In memory
/// and bounded: at most ``maximumCalls`` calls (the oldest is forgotten first) and
/// ``maximumEventsPerCall`` events a call (later ones are dropped and counted). Only a party of
/// a call may post to it.
final class CallEventLog: Sendable {
    /// One stored event: who posted it and when it arrived.
    struct Entry: Sendable, Codable, Equatable {
        /// `caller` or `callee`.
        var party: String
        var event: InsightsEvent
        /// When the edge received it: milliseconds since the Unix epoch.
        var receivedAt: Int64
    }

    private struct Call {
        let account: String
        /// Identity → its role.
        var parties: [String: CallRole]
        var accepted = 0
        var dropped = 0
    }

    private struct State {
        var calls: [String: Call] = [:]
        var order: [String] = []
        var droppedEvents = 0
    }

    /// Calls remembered at once.
    static let maximumCalls = 10_000
    /// Events kept per call.
    static let maximumEventsPerCall = 2_000

    private let state = Mutex(State())

    /// Events dropped because their call was full.
    var droppedEvents: Int { state.withLock { $0.droppedEvents } }

    /// Starts (or joins) a call's log: `identity` of `account` may post to it as `role`.
    func open(callSid: String, account: String, identity: String, role: CallRole) {
        state.withLock { state in
            if state.calls[callSid] == nil {
                state.calls[callSid] = Call(account: account, parties: [:])
                state.order.append(callSid)
                if state.order.count > Self.maximumCalls {
                    let oldest = state.order.removeFirst()
                    state.calls.removeValue(forKey: oldest)
                }
            }
            guard var call = state.calls[callSid], call.account == account else { return }
            if call.parties[identity] == nil { call.parties[identity] = role }
            state.calls[callSid] = call
        }
    }

    /// Stores events a party posted.
    /// - Returns: the events kept (those within the call's cap), `nil` when the call is unknown
    ///   here or `identity` of `account` is not one of its parties.
    func append(_ events: [InsightsEvent], callSid: String, account: String, identity: String, at now: Int64) -> [Entry]? {
        state.withLock { state in
            guard var call = state.calls[callSid], call.account == account, let role = call.parties[identity] else { return nil }
            var kept: [Entry] = []
            for event in events {
                guard call.accepted < Self.maximumEventsPerCall else {
                    call.dropped += 1
                    state.droppedEvents += 1
                    continue
                }
                call.accepted += 1
                kept.append(Entry(party: role.rawValue, event: event, receivedAt: now))
            }
            state.calls[callSid] = call
            return kept
        }
    }

    /// Whether `identity` of `account` is a party of call `callSid` routed here (a test call's
    /// caller, a call's caller or callee).
    func isParty(callSid: String, account: String, identity: String) -> Bool {
        state.withLock { state in
            guard let call = state.calls[callSid], call.account == account else { return false }
            return call.parties[identity] != nil
        }
    }

    /// How many of a call's events were dropped here (over the cap); `nil` when the call is
    /// unknown here or another account's.
    func dropped(callSid: String, account: String) -> Int? {
        state.withLock { state in
            guard let call = state.calls[callSid], call.account == account else { return nil }
            return call.dropped
        }
    }
}

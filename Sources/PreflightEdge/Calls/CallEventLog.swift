import PreflightCore
import Synchronization

/// Who may post Insights events to the edge's recent calls, and how many each call took: the
/// events themselves go to the store (``ReportStore``, `GET /v1/calls/{sid}/events`). Only a
/// party of a call may post to it. In memory and bounded, per account (``CallLimits``):
///
/// - A call counts in the share of its account and of the identity that opened it (the caller).
///   The log holds at most ``CallLimits/maximumLoggedCalls`` calls, an account at most
///   ``CallLimits/maximumLoggedCallsPerAccount``. Past either, a call is forgotten: from the
///   account holding the most calls (or the account over its own cap), from its identity holding
///   the most, that identity's oldest first; among accounts or identities holding as many, the
///   one whose oldest call is the oldest (``EvictionRanking``). One account's (or identity's)
///   flood of calls therefore forgets its own calls, never those of an account (an identity)
///   holding fewer. Each forgotten call costs O(log n) amortized, n the accounts and identities.
/// - A call keeps ``maximumEventsPerCall`` events; and takes them at
///   ``CallLimits/callInsightsRate`` a second (bursts of ``CallLimits/callInsightsBurst``) from
///   all its parties, each session at its own rate on top (``sessionBucket(_:)``). Later events
///   are dropped and counted in the call's `dropped`.
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
        /// The identity whose share the call counts in: the one that opened it.
        let owner: String
        /// Identity → its role.
        var parties: [String: CallRole]
        var accepted = 0
        var dropped = 0
        /// The call's own Insights rate.
        var rate: TokenBucket
    }

    private struct State {
        var calls: [String: Call] = [:]
        var accounts: [String: LoggedCalls] = [:]
        /// Accounts by the calls they hold.
        var ranking = EvictionRanking<String>()
        /// The next call's number: numbers grow with age.
        var nextNumber: UInt64 = 0
        var droppedEvents = 0
    }

    /// Events kept per call.
    static let maximumEventsPerCall = 2_000

    private let state = Mutex(State())
    private let limits: CallLimits

    /// Creates an empty log with `limits`' caps and rates.
    init(limits: CallLimits = CallLimits()) {
        self.limits = limits
    }

    /// Events dropped, over a call's cap or a rate.
    var droppedEvents: Int { state.withLock { $0.droppedEvents } }

    /// Calls remembered now.
    var callCount: Int { state.withLock { $0.calls.count } }

    /// A full bucket of a session's own Insights rate.
    static func sessionBucket(_ limits: CallLimits) -> TokenBucket {
        TokenBucket(rate: limits.sessionInsightsRate, burst: limits.sessionInsightsBurst)
    }

    /// Starts (or joins) a call's log: `identity` of `account` may post to it as `role`. A new
    /// call counts in the share of `account` and `identity`, and may make the log forget one.
    func open(callSid: String, account: String, identity: String, role: CallRole) {
        state.withLock { state in
            if state.calls[callSid] == nil {
                state.calls[callSid] = Call(
                    account: account, owner: identity, parties: [:],
                    rate: TokenBucket(rate: limits.callInsightsRate, burst: limits.callInsightsBurst))
                state.accounts[account, default: LoggedCalls()].add(callSid, number: state.nextNumber, identity: identity)
                state.nextNumber += 1
                Self.rank(account, in: &state)
                while (state.accounts[account]?.count ?? 0) > max(1, limits.maximumLoggedCallsPerAccount) {
                    Self.forgetOne(of: account, in: &state)
                }
                while state.calls.count > max(1, limits.maximumLoggedCalls), let largest = state.ranking.top() {
                    Self.forgetOne(of: largest, in: &state)
                }
            }
            guard var call = state.calls[callSid], call.account == account else { return }
            if call.parties[identity] == nil { call.parties[identity] = role }
            state.calls[callSid] = call
        }
    }

    /// Stores events a party posted, within the call's cap, the session's rate (`session`, the
    /// posting session's own bucket) and the call's: the rest are dropped and counted.
    /// - Parameters:
    ///   - receivedAt: milliseconds since the Unix epoch, each kept entry's `receivedAt`.
    ///   - now: seconds on a monotonic clock, for the rates.
    /// - Returns: the events kept, `nil` when the call is unknown here or `identity` of `account`
    ///   is not one of its parties (nothing is counted then).
    func append(
        _ events: [InsightsEvent], callSid: String, account: String, identity: String, receivedAt: Int64,
        session: inout TokenBucket, now: Double
    ) -> [Entry]? {
        state.withLock { state in
            guard var call = state.calls[callSid], call.account == account, let role = call.parties[identity] else { return nil }
            var kept: [Entry] = []
            for event in events {
                // The cap first: an event over it takes no token of either rate.
                guard call.accepted < Self.maximumEventsPerCall, session.allow(at: now), call.rate.allow(at: now) else {
                    call.dropped += 1
                    state.droppedEvents += 1
                    continue
                }
                call.accepted += 1
                kept.append(Entry(party: role.rawValue, event: event, receivedAt: receivedAt))
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

    /// How many of a call's events were dropped here (over the cap or a rate); `nil` when the
    /// call is unknown here or another account's.
    func dropped(callSid: String, account: String) -> Int? {
        state.withLock { state in
            guard let call = state.calls[callSid], call.account == account else { return nil }
            return call.dropped
        }
    }

    /// Counts `count` of a call's events that were kept here but not stored (the store's queue was
    /// full, the poster was over its store quota, or the store failed), so that the call's
    /// `dropped` tells every event that is not read back.
    func countNotStored(_ count: Int, callSid: String, account: String) {
        state.withLock { state in
            guard var call = state.calls[callSid], call.account == account else { return }
            call.dropped += count
            state.calls[callSid] = call
        }
    }

    /// Calls `account` holds here now, by identity (the one that opened each).
    func callCounts(account: String) -> [String: Int] {
        state.withLock { $0.accounts[account]?.counts ?? [:] }
    }

    /// Tells the ranking of accounts what `account` holds now.
    private static func rank(_ account: String, in state: inout State) {
        let count = state.accounts[account]?.count ?? 0
        let oldest = state.accounts[account]?.oldestNumber() ?? 0
        state.ranking.update(account, count: count, oldest: oldest)
        if count == 0 { state.accounts.removeValue(forKey: account) }
    }

    /// Forgets the oldest call of `account`'s identity holding the most.
    private static func forgetOne(of account: String, in state: inout State) {
        guard let callSid = state.accounts[account]?.removeOne() else {
            // Nothing to forget: an account without calls leaves the ranking.
            state.ranking.update(account, count: 0, oldest: 0)
            return
        }
        state.calls.removeValue(forKey: callSid)
        rank(account, in: &state)
    }
}

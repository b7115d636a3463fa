import PreflightCore
@testable import PreflightEdge
import Testing

@Suite struct CallEventLogTests {
    static let event = InsightsEvent(.connection, "ringing", timestamp: 1)

    /// Posts `events` as `identity` of `account` with a session bucket of its own, at `now`.
    static func post(
        _ log: CallEventLog, _ callSid: String, events: [InsightsEvent] = [event], account: String = "AC1", identity: String,
        at receivedAt: Int64 = 1, now: Double = 0
    ) -> [CallEventLog.Entry]? {
        var session = TokenBucket(rate: 1_000, burst: 10_000)
        return log.append(events, callSid: callSid, account: account, identity: identity, receivedAt: receivedAt, session: &session, now: now)
    }

    /// A log whose rates never bind, with caps `calls` and `perAccount`.
    static func log(calls: Int = 20_000, perAccount: Int = 10_000) -> CallEventLog {
        CallEventLog(limits: CallLimits(
            maximumLoggedCalls: calls, maximumLoggedCallsPerAccount: perAccount, callInsightsRate: 1_000, callInsightsBurst: 10_000))
    }

    @Test func onlyPartiesPostAndOnlyTheAccountReads() {
        let log = Self.log()
        log.open(callSid: "CA1", account: "AC1", identity: "alice", role: .caller)
        log.open(callSid: "CA1", account: "AC1", identity: "bob", role: .callee)
        // Another account cannot join the call's log.
        log.open(callSid: "CA1", account: "AC2", identity: "mallory", role: .callee)
        #expect(Self.post(log, "CA1", identity: "alice", at: 5) != nil)
        #expect(Self.post(log, "CA1", identity: "bob", at: 6) != nil)
        #expect(Self.post(log, "CA1", account: "AC2", identity: "mallory", at: 7) == nil)
        #expect(Self.post(log, "CA1", identity: "carol", at: 7) == nil)
        #expect(Self.post(log, "CA2", identity: "alice", at: 7) == nil)
        #expect(Self.post(log, "CA1", identity: "alice", at: 8)?.map(\.party) == ["caller"])
        #expect(Self.post(log, "CA1", identity: "bob", at: 9)?.map(\.receivedAt) == [9])
        #expect(log.isParty(callSid: "CA1", account: "AC1", identity: "bob"))
        #expect(!log.isParty(callSid: "CA1", account: "AC1", identity: "mallory"))
        #expect(log.dropped(callSid: "CA1", account: "AC2") == nil)
    }

    @Test func aCallKeepsAtMostItsLimitAndCountsTheRest() {
        let log = Self.log()
        log.open(callSid: "CA1", account: "AC1", identity: "alice", role: .caller)
        let batch = Array(repeating: Self.event, count: 100)
        var kept = 0
        for _ in 0..<21 { kept += Self.post(log, "CA1", events: batch, identity: "alice")?.count ?? 0 }
        #expect(kept == CallEventLog.maximumEventsPerCall)
        #expect(log.dropped(callSid: "CA1", account: "AC1") == 2_100 - CallEventLog.maximumEventsPerCall)
        #expect(log.droppedEvents == 100)
    }

    @Test func oneIdentitysCallsAreForgottenOldestFirst() {
        let log = Self.log(calls: 100)
        for index in 0...100 {
            log.open(callSid: "CA\(index)", account: "AC1", identity: "alice", role: .caller)
        }
        #expect(!log.isParty(callSid: "CA0", account: "AC1", identity: "alice"))
        #expect(log.isParty(callSid: "CA1", account: "AC1", identity: "alice"))
        #expect(log.isParty(callSid: "CA100", account: "AC1", identity: "alice"))
        #expect(log.callCount == 100)
    }

    /// The finding: a flood of one account's calls pushed another account's call out of the log.
    /// Now the account holding the most gives up its own, whatever their age.
    @Test func anotherAccountsFloodForgetsOnlyItsOwnCalls() {
        let log = Self.log(calls: 100, perAccount: 100)
        log.open(callSid: "CAreal", account: "AC2", identity: "bob", role: .caller)
        log.open(callSid: "CAreal", account: "AC2", identity: "carol", role: .callee)
        for index in 0..<10_000 {
            log.open(callSid: "CAspam\(index)", account: "AC1", identity: "mallory-\(index % 7)", role: .caller)
        }
        #expect(log.callCount == 100)
        #expect(log.isParty(callSid: "CAreal", account: "AC2", identity: "carol"))
        #expect(Self.post(log, "CAreal", account: "AC2", identity: "carol")?.count == 1)
        #expect(log.callCounts(account: "AC1").values.reduce(0, +) == 99)
        // The spam's newest stay, its oldest went.
        #expect(log.isParty(callSid: "CAspam9999", account: "AC1", identity: "mallory-3"))
        #expect(!log.isParty(callSid: "CAspam0", account: "AC1", identity: "mallory-0"))
    }

    /// Within an account the identity holding the most gives up its own: a flood by one identity
    /// (or a few) leaves another identity's call.
    @Test func anotherIdentitysFloodForgetsOnlyItsOwnCalls() {
        let log = Self.log(calls: 1_000, perAccount: 50)
        log.open(callSid: "CAreal", account: "AC1", identity: "alice", role: .caller)
        log.open(callSid: "CAreal2", account: "AC1", identity: "alice", role: .caller)
        for index in 0..<5_000 {
            log.open(callSid: "CAspam\(index)", account: "AC1", identity: index.isMultiple(of: 2) ? "mallory" : "eve", role: .caller)
        }
        #expect(log.callCounts(account: "AC1") == ["alice": 2, "mallory": 24, "eve": 24])
        #expect(Self.post(log, "CAreal", identity: "alice") != nil)
        #expect(Self.post(log, "CAreal2", identity: "alice") != nil)
    }

    /// Among accounts (identities) holding as many calls, the one whose oldest call is the oldest
    /// gives one up: calls of one call each go oldest first, as before.
    @Test func equalSharesGiveUpTheOldestCallFirst() {
        let log = Self.log(calls: 3)
        for (index, account) in ["AC1", "AC2", "AC3", "AC4", "AC5"].enumerated() {
            log.open(callSid: "CA\(index)", account: account, identity: "alice", role: .caller)
        }
        #expect((0..<5).map { log.isParty(callSid: "CA\($0)", account: "AC\($0 + 1)", identity: "alice") } == [false, false, true, true, true])
        let identities = Self.log(calls: 3)
        for index in 0..<5 { identities.open(callSid: "CA\(index)", account: "AC1", identity: "user-\(index)", role: .caller) }
        #expect(identities.callCounts(account: "AC1") == ["user-2": 1, "user-3": 1, "user-4": 1])
    }

    /// The per-account cap holds while the log has room: an account over it forgets its own.
    @Test func anAccountKeepsAtMostItsCap() {
        let log = Self.log(calls: 1_000, perAccount: 10)
        for index in 0..<25 { log.open(callSid: "CA\(index)", account: "AC1", identity: "alice", role: .caller) }
        for index in 0..<5 { log.open(callSid: "CB\(index)", account: "AC2", identity: "bob", role: .caller) }
        #expect(log.callCount == 15)
        #expect(log.callCounts(account: "AC1") == ["alice": 10])
        #expect(log.isParty(callSid: "CA15", account: "AC1", identity: "alice"))
        #expect(!log.isParty(callSid: "CA14", account: "AC1", identity: "alice"))
    }

    /// Bounded under a long flood of many identities: the log never grows past its cap and each
    /// forgotten call stays cheap (the ranking's heap is rebuilt, not left to grow).
    @Test func aLongFloodStaysWithinTheCaps() {
        let log = Self.log(calls: 500, perAccount: 400)
        log.open(callSid: "CAreal", account: "AC2", identity: "bob", role: .caller)
        for index in 0..<50_000 {
            log.open(callSid: "CA\(index)", account: "AC1", identity: "user-\(index % 1_000)", role: .caller)
            log.open(callSid: "CAx\(index)", account: "AC3", identity: "bot", role: .caller)
        }
        #expect(log.callCount == 500)
        #expect(log.isParty(callSid: "CAreal", account: "AC2", identity: "bob"))
        #expect(log.callCounts(account: "AC1").values.reduce(0, +) + log.callCounts(account: "AC3").values.reduce(0, +) == 499)
    }

    /// A session posts at most its rate, to whichever calls; the rest dropped and counted.
    @Test func aSessionsEventsAreRateLimitedAcrossCalls() {
        let log = Self.log()
        for index in 0..<5 { log.open(callSid: "CA\(index)", account: "AC1", identity: "alice", role: .caller) }
        var session = TokenBucket(rate: 10, burst: 200)
        let batch = Array(repeating: Self.event, count: 100)
        var kept = 0
        // 5,000 events within the first second, spread over five calls: the burst and 10 more.
        for step in 0..<50 {
            kept += log.append(
                batch, callSid: "CA\(step % 5)", account: "AC1", identity: "alice", receivedAt: 1, session: &session,
                now: Double(step) / 50)?.count ?? 0
        }
        #expect(kept == 200 + 9)
        #expect((0..<5).compactMap { log.dropped(callSid: "CA\($0)", account: "AC1") }.reduce(0, +) == 5_000 - kept)
        // Ten seconds later the session may post 100 again.
        #expect(log.append(batch, callSid: "CA0", account: "AC1", identity: "alice", receivedAt: 1, session: &session, now: 11)?.count == 100)
    }

    /// A call takes at most its rate from all its parties' sessions together.
    @Test func aCallsEventsAreRateLimitedAcrossSessions() {
        let log = CallEventLog(limits: CallLimits(callInsightsRate: 10, callInsightsBurst: 200))
        log.open(callSid: "CA1", account: "AC1", identity: "alice", role: .caller)
        log.open(callSid: "CA1", account: "AC1", identity: "bob", role: .callee)
        let batch = Array(repeating: Self.event, count: 100)
        var kept = 0
        for step in 0..<10 {
            // Every post from a new session: only the call's bucket binds.
            kept += Self.post(log, "CA1", events: batch, identity: step.isMultiple(of: 2) ? "alice" : "bob", now: Double(step) / 10)?.count ?? 0
        }
        #expect(kept == 200 + 9)
        #expect(log.dropped(callSid: "CA1", account: "AC1") == 1_000 - kept)
        #expect(Self.post(log, "CA1", events: batch, identity: "bob", now: 30)?.count == 100)
    }

    @Test func theRankingPutsTheLargestFirstAndTheOldestAmongEquals() {
        var ranking = EvictionRanking<String>()
        #expect(ranking.top() == nil)
        ranking.update("a", count: 3, oldest: 10)
        ranking.update("b", count: 5, oldest: 20)
        ranking.update("c", count: 5, oldest: 15)
        #expect(ranking.top() == "c")
        ranking.update("c", count: 4, oldest: 16)
        #expect(ranking.top() == "b")
        ranking.update("b", count: 0, oldest: 0)
        #expect(ranking.top() == "c")
        ranking.update("a", count: 4, oldest: 10)
        #expect(ranking.top() == "a")
        #expect(ranking.count == 2)
        // Many changes to few keys: the answer stays right.
        for step in 0..<10_000 { ranking.update("a", count: 1 + step % 3, oldest: UInt64(step)) }
        ranking.update("c", count: 3, oldest: 1)
        #expect(ranking.top() == "c")
    }

    @Test(arguments: [
        ("client:bob", DialTarget.client(identity: "bob")),
        ("echo", .application(.echo)),
        ("record-playback", .application(.recordPlayback)),
    ])
    func dialTargetsParse(text: String, target: DialTarget) {
        #expect(DialTarget(text) == target)
    }

    @Test(arguments: ["client:", "", "+15550100", "Echo", "client:" + String(repeating: "x", count: 300)])
    func notATarget(text: String) {
        #expect(DialTarget(text) == nil)
    }

    @Test func theRouteTableComesFirst() {
        #expect(DialTarget.resolve("+15550100", routes: ["+15550100": .client(identity: "bob")]) == .client(identity: "bob"))
        #expect(DialTarget.resolve("echo", routes: ["echo": .client(identity: "eve")]) == .client(identity: "eve"))
        #expect(DialTarget.resolve("client:x", routes: [:]) == .client(identity: "x"))
    }
}

import PreflightCore
import Testing

@testable import PreflightEdge

/// The invite rates of ``CallRouter``: a caller invites, and a callee is rung, at most at its
/// bucket's rate (time passed in, no clocks).
@Suite struct CallRouterLimitTests {
    static func party(_ identity: String, session: String? = nil, account: String = "AC1") -> CallRouter.Party {
        CallRouter.Party(sessionId: session ?? "SS-\(identity)", account: account, identity: identity, notices: SessionInbox())
    }

    /// Dials `identity` from `caller` at `now`, and hangs the call up at once so that its devices
    /// are free for the next: the error code, `nil` when it rang.
    static func dial(_ router: CallRouter, from caller: CallRouter.Party, to identity: String, at now: Double) -> PreflightError.Code? {
        let callSid = "CA\(UInt64.random(in: 0...UInt64.max))"
        do throws(PreflightError) {
            try router.dial(
                callSid: callSid, from: caller, identity: identity, to: "client:\(identity)", params: [:], format: .pcmu, at: now)
        } catch {
            return error.code
        }
        router.hangUp(callSid: callSid, by: caller.sessionId, reason: "test", code: nil)
        return nil
    }

    static func router(_ limits: CallLimits = CallLimits()) -> CallRouter {
        CallRouter(media: MediaService(configuration: .init()), limits: limits)
    }

    @Test func aCallerInvitesAtItsRateWhateverBecomesOfTheInvite() {
        let router = Self.router()
        for device in ["SS-bob-1", "SS-bob-2", "SS-bob-3"] { router.register(Self.party("bob", session: device)) }
        let alice = Self.party("alice")
        // The burst: ten invites at once, one of them to nobody (31480 counts too).
        #expect((0..<9).map { _ in Self.dial(router, from: alice, to: "bob", at: 0) } == Array(repeating: nil, count: 9))
        #expect(Self.dial(router, from: alice, to: "nobody", at: 0) == .calleeUnavailable)
        #expect(Self.dial(router, from: alice, to: "bob", at: 0) == .inviteRateLimited)
        #expect(Self.dial(router, from: alice, to: "bob", at: 0.5) == .inviteRateLimited)
        // Then one a second.
        #expect(Self.dial(router, from: alice, to: "bob", at: 1) == nil)
        #expect(Self.dial(router, from: alice, to: "bob", at: 1.5) == .inviteRateLimited)
        #expect(Self.dial(router, from: alice, to: "bob", at: 2) == nil)
        // Another caller of the same account has its own bucket.
        #expect(Self.dial(router, from: Self.party("carol"), to: "dave", at: 2) == .calleeUnavailable)
        // So has the same identity in another account.
        #expect(Self.dial(router, from: Self.party("alice", account: "AC2"), to: "bob", at: 2) == .calleeUnavailable)
    }

    @Test func aCalleeIsRungAtItsRateFromAllCallers() {
        let router = Self.router()
        router.register(Self.party("bob"))
        // Twelve callers, one invite each: the callee's burst of ten rings, then nothing.
        let codes = (0..<12).map { Self.dial(router, from: Self.party("caller-\($0)"), to: "bob", at: 0) }
        #expect(codes.prefix(10).allSatisfy { $0 == nil })
        #expect(codes.suffix(2) == [.inviteRateLimited, .inviteRateLimited])
        // A refused ring took the caller's token, not another ring of the callee's.
        #expect(Self.dial(router, from: Self.party("caller-12"), to: "bob", at: 1) == nil)
        #expect(Self.dial(router, from: Self.party("caller-13"), to: "bob", at: 1) == .inviteRateLimited)
        // Bob of another account is another callee.
        router.register(Self.party("bob", session: "SS-bob-2", account: "AC2"))
        #expect(Self.dial(router, from: Self.party("eve", account: "AC2"), to: "bob", at: 1) == nil)
    }

    /// A busy callee costs the caller its invite but the callee no ring.
    @Test func aBusyCalleeIsNotCharged() {
        let router = Self.router(CallLimits(calleeRingRate: 1, calleeRingBurst: 2))
        let bob = Self.party("bob")
        router.register(bob)
        let carol = Self.party("carol")
        do throws(PreflightError) {
            // Bob's one device answers a call: it is busy. That call took one of bob's two rings.
            try router.dial(callSid: "CA1", from: carol, identity: "bob", to: "client:bob", params: [:], format: .pcmu, at: 0)
        } catch {
            Issue.record("the first call must ring: \(error)")
        }
        #expect(router.accept(callSid: "CA1", by: bob) == .won)
        #expect(Self.dial(router, from: Self.party("dave"), to: "bob", at: 0) == .calleeBusy)
        router.hangUp(callSid: "CA1", by: carol.sessionId, reason: "test", code: nil)
        // The busy one took none: one ring is left at the same instant.
        #expect(Self.dial(router, from: Self.party("erin"), to: "bob", at: 0) == nil)
        #expect(Self.dial(router, from: Self.party("frank"), to: "bob", at: 0) == .inviteRateLimited)
    }
}

@testable import PreflightEdge
import Testing

/// ``StoreQuota`` on a fake clock: what an identity and an account may store per window.
@Suite struct StoreQuotaTests {
    static let limits = StoreQuota.Limits(identityBytes: 10_000, identityRows: 10, accountBytes: 25_000, accountRows: 100, window: .seconds(100))
    static let alice = StoreLedger.Owner(account: "AC1", identity: "alice")
    static let mallory = StoreLedger.Owner(account: "AC1", identity: "mallory")

    @Test func anIdentityStoresItsAllowanceThenWaitsForItToRefill() {
        var quota = StoreQuota(limits: Self.limits)
        for _ in 0..<4 { #expect(quota.admit(Self.alice, bytes: 2500, rows: 1, at: 0) == .admitted) }
        guard case .refused(let scope, let wait) = quota.admit(Self.alice, bytes: 2500, rows: 1, at: 0) else {
            Issue.record("a fifth 2500 bytes within the window was admitted")
            return
        }
        #expect(scope == .identity)
        // 2500 bytes of a 10,000-byte window refill in a quarter of it.
        #expect(abs(wait - 25) < 1e-6)
        #expect(quota.admit(Self.alice, bytes: 2500, rows: 1, at: 24) != .admitted)
        #expect(quota.admit(Self.alice, bytes: 2500, rows: 1, at: 25.001) == .admitted)
    }

    @Test func rowsAreCountedToo() {
        var quota = StoreQuota(limits: Self.limits)
        #expect(quota.admit(Self.alice, bytes: 10, rows: 10, at: 0) == .admitted)
        #expect(quota.admit(Self.alice, bytes: 10, rows: 1, at: 0) == .refused(.identity, retryAfter: 10))
    }

    /// One identity's use never takes another identity's allowance; the account's bounds them all.
    @Test func identitiesHaveTheirOwnAllowanceWithinTheAccounts() {
        var quota = StoreQuota(limits: Self.limits)
        #expect(quota.admit(Self.mallory, bytes: 10_000, rows: 1, at: 0) == .admitted)
        #expect(quota.admit(Self.mallory, bytes: 1, rows: 1, at: 0) != .admitted)
        #expect(quota.admit(Self.alice, bytes: 10_000, rows: 1, at: 0) == .admitted)
        // The account has 5,000 left: carol gets that much, not her whole identity allowance.
        let carol = StoreLedger.Owner(account: "AC1", identity: "carol")
        guard case .refused(.account, _) = quota.admit(carol, bytes: 6_000, rows: 1, at: 0) else {
            Issue.record("the account's allowance did not bound a third identity")
            return
        }
        #expect(quota.admit(carol, bytes: 5_000, rows: 1, at: 0) == .admitted)
        // Another account is untouched.
        #expect(quota.admit(StoreLedger.Owner(account: "AC2", identity: "alice"), bytes: 10_000, rows: 1, at: 0) == .admitted)
    }

    @Test func aRefusalTakesNothingAndMoreThanAWindowNeverFits() {
        var quota = StoreQuota(limits: Self.limits)
        #expect(quota.admit(Self.alice, bytes: 20_000, rows: 1, at: 0) == .refused(.identity, retryAfter: .infinity))
        #expect(quota.admit(Self.alice, bytes: 10_000, rows: 1, at: 0) == .admitted, "the refusal took something")
    }

    /// The table never holds more owners than its capacity; owners idle for a window go, and
    /// newcomers beyond share one allowance rather than resetting anyone's.
    @Test func theTableIsBounded() {
        var quota = StoreQuota(limits: Self.limits, capacity: 3)
        for index in 0..<10 {
            _ = quota.admit(StoreLedger.Owner(account: "AC\(index)", identity: "x"), bytes: 10_000, rows: 1, at: 0)
        }
        #expect(quota.count.identities <= 3 && quota.count.accounts <= 3)
        // The shared allowance of the newcomers is spent: a further newcomer is refused.
        #expect(quota.admit(StoreLedger.Owner(account: "AC99", identity: "x"), bytes: 10_000, rows: 1, at: 0) != .admitted)
        // A window later, the idle owners are forgotten and there is room.
        #expect(quota.admit(StoreLedger.Owner(account: "AC98", identity: "x"), bytes: 10_000, rows: 1, at: 200) == .admitted)
        #expect(quota.count.identities <= 3)
    }
}

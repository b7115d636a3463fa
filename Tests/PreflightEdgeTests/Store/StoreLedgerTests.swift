@testable import PreflightEdge
import Testing

/// ``StoreLedger``'s accounting and its eviction order.
@Suite struct StoreLedgerTests {
    static let alice = StoreLedger.Owner(account: "AC1", identity: "alice")
    static let mallory = StoreLedger.Owner(account: "AC1", identity: "mallory")
    static let bob = StoreLedger.Owner(account: "AC2", identity: "bob")

    @Test func itCountsAndForgets() {
        var ledger = StoreLedger()
        ledger.record(Self.alice, in: .reports, bytes: 1000, rows: 2)
        ledger.record(Self.alice, in: .events, bytes: 300, rows: 3)
        #expect(ledger.totalBytes == 1300 && ledger.totalRows == 5)
        #expect(ledger.bytes(ofAccount: "AC1") == 1300)
        ledger.record(Self.alice, in: .reports, bytes: -1000, rows: -2)
        ledger.record(Self.alice, in: .events, bytes: -300, rows: -3)
        #expect(ledger.totalBytes == 0 && ledger.totalRows == 0)
        #expect(ledger.heaviest() == nil, "an owner with nothing is forgotten")
        // Nothing goes below zero.
        ledger.record(Self.bob, in: .reports, bytes: -50, rows: -1)
        #expect(ledger.totalBytes == 0 && ledger.holding(of: Self.bob, in: .reports) == StoreLedger.Holding())
    }

    /// The heaviest account first, then its heaviest identity, then that identity's heavier table.
    @Test func eachStepTakesFromTheHeaviest() throws {
        var ledger = StoreLedger()
        ledger.record(Self.alice, in: .reports, bytes: 3000, rows: 3)
        ledger.record(Self.mallory, in: .events, bytes: 5000, rows: 50)
        ledger.record(Self.mallory, in: .reports, bytes: 1000, rows: 1)
        ledger.record(Self.bob, in: .reports, bytes: 7000, rows: 7)
        // AC1 holds 9000, AC2 7000: AC1's mallory (6000), her events (5000).
        let first = try #require(ledger.heaviest())
        #expect(first.owner == Self.mallory && first.table == .events)
        ledger.record(Self.mallory, in: .events, bytes: -5000, rows: -50)
        // AC1 now 4000 and AC2 7000: bob.
        #expect(try #require(ledger.heaviest()).owner == Self.bob)
    }

    /// A flood by one identity is evicted before anyone else loses a row: each step takes from the
    /// flooder until it holds no more than the next heaviest.
    @Test func aFloodEvictsItsOwnRowsFirst() {
        var ledger = StoreLedger()
        ledger.record(Self.alice, in: .reports, bytes: 4000, rows: 4)
        ledger.record(Self.bob, in: .reports, bytes: 4000, rows: 4)
        ledger.record(Self.mallory, in: .reports, bytes: 100_000, rows: 100)
        var evictedFrom: [StoreLedger.Owner] = []
        while ledger.totalBytes > 20_000, let (owner, table) = ledger.heaviest() {
            ledger.record(owner, in: table, bytes: -1000, rows: -1)
            evictedFrom.append(owner)
        }
        #expect(evictedFrom.allSatisfy { $0 == Self.mallory }, "\(Set(evictedFrom))")
        #expect(ledger.holding(of: Self.alice, in: .reports).rows == 4)
        #expect(ledger.holding(of: Self.bob, in: .reports).rows == 4)
    }

    @Test func tiesGoToTheSmallerNameWhateverTheOrder() {
        var first = StoreLedger()
        first.record(Self.alice, in: .reports, bytes: 10, rows: 1)
        first.record(Self.bob, in: .reports, bytes: 10, rows: 1)
        var second = StoreLedger()
        second.record(Self.bob, in: .reports, bytes: 10, rows: 1)
        second.record(Self.alice, in: .reports, bytes: 10, rows: 1)
        #expect(first.heaviest()?.owner == Self.alice)
        #expect(second.heaviest()?.owner == Self.alice)
    }
}

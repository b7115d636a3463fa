import NIOCore
import PreflightCore
import Testing

@testable import PreflightEdge

@Suite struct VerifiedTableTests {
    static func key(_ index: Int) -> SourceKey {
        // Every key an IPv4 address and port of its own.
        SourceKey(try! SocketAddress(ipAddress: "10.\(index >> 16 & 255).\(index >> 8 & 255).\(index & 255)", port: 1000 + index % 7))!
    }

    static func peer(_ ufrag: String, slot: Int = 0) -> MediaService.VerifiedPeer {
        MediaService.VerifiedPeer(
            ufrag: ufrag, session: .init(index: slot, generation: 0), rate: TokenBucket(rate: 10, burst: 10))
    }

    @Test func entriesAreFoundChangedAndRemovedByKey() throws {
        var table = MediaService.VerifiedTable()
        table[Self.key(1)] = Self.peer("a", slot: 1)
        table[Self.key(2)] = Self.peer("b", slot: 2)
        #expect(table.count == 2 && table[Self.key(1)]?.ufrag == "a" && table[Self.key(2)]?.session.index == 2)
        #expect(table[Self.key(3)] == nil && table.entry(forKey: Self.key(3)) == nil)
        // Set again: changed in place, the same entry.
        let entry = try #require(table.entry(forKey: Self.key(1)))
        table[Self.key(1)] = Self.peer("c", slot: 3)
        #expect(table.entry(forKey: Self.key(1)) == entry && table[entry: entry].ufrag == "c" && table.count == 2)
        // Changed through its number.
        table[entry: entry].budget.receive(bytes: 100)
        #expect(table[Self.key(1)]?.budget.bytesReceived == 100)
        table[Self.key(1)] = nil
        #expect(table[Self.key(1)] == nil && table.count == 1 && !table.contains(entry: entry, key: Self.key(1)))
        #expect(table[Self.key(2)]?.ufrag == "b")
    }

    @Test func anEntrysNumberStaysValidAcrossGrowthAndIsNotAnotherKeysAfterRemoval() throws {
        var table = MediaService.VerifiedTable()
        table[Self.key(0)] = Self.peer("first")
        let first = try #require(table.entry(forKey: Self.key(0)))
        for index in 1..<3000 { table[Self.key(index)] = Self.peer("p\(index)", slot: index) }
        #expect(table.count == 3000)
        // Grown many times: the first entry is where it was, and every key finds its own.
        #expect(table.contains(entry: first, key: Self.key(0)) && table[entry: first].ufrag == "first")
        for index in stride(from: 1, to: 3000, by: 97) { #expect(table[Self.key(index)]?.session.index == index) }
        // Removed, its number taken by another key: a number kept for the old key is refused.
        table[Self.key(0)] = nil
        table[Self.key(5000)] = Self.peer("new")
        #expect(table.entry(forKey: Self.key(5000)) == first)
        #expect(!table.contains(entry: first, key: Self.key(0)) && table.contains(entry: first, key: Self.key(5000)))
    }

    @Test(arguments: [-1, 1, 1 << 40, Int.min])
    func aNumberOutOfRangeIsNoEntry(_ number: Int) {
        var table = MediaService.VerifiedTable()
        table[Self.key(7)] = Self.peer("a")
        #expect(!table.contains(entry: number, key: Self.key(7)))
        // A prefetch is only a hint: out of range, nothing happens.
        table.prefetch(entry: number)
        table.prefetchEntry(hash: number)
    }

    @Test func removalsAndInsertsInTurnDoNotFillTheTable() {
        var table = MediaService.VerifiedTable()
        // 20,000 addresses come and go, at most 10 at a time: searches for absent keys still end
        // (the removal marks are swept when the buckets fill) and the entries are reused.
        for index in 0..<20_000 {
            table[Self.key(index)] = Self.peer("p")
            if index >= 10 { table[Self.key(index - 10)] = nil }
        }
        #expect(table.count == 10 && table.bucketCount <= 64)
        #expect(table.entry(forKey: Self.key(123_456)) == nil)
        for index in 19_990..<20_000 { #expect(table.entry(forKey: Self.key(index)).map { $0 < 11 } == true) }
    }

    @Test func removeAllRemovesTheMatchingPeersOnly() {
        var table = MediaService.VerifiedTable()
        for index in 0..<100 { table[Self.key(index)] = Self.peer(index.isMultiple(of: 3) ? "gone" : "kept") }
        table.removeAll { $0.ufrag == "gone" }
        #expect(table.count == 66)
        for index in 0..<100 { #expect((table[Self.key(index)] == nil) == index.isMultiple(of: 3)) }
    }
}

import PreflightCore
import Testing

@testable import PreflightEdge

@Suite struct SessionTableTests {
    static func session(_ ufrag: String, ssrc: UInt32) -> MediaService.Session {
        MediaService.Session(
            credentials: ICELiteCredentials(localUfrag: ufrag, localPassword: "password0123456789abcd", remoteUfrag: "clnt"),
            key: STUNIntegrityKey(Array("password0123456789abcd".utf8)), application: .echo, format: .pcmu, ssrc: ssrc, sequence: 0)
    }

    @Test func aSlotOutlivesNeitherItsSessionNorAReplacement() throws {
        var table = MediaService.SessionTable()
        table["a"] = Self.session("a", ssrc: 1)
        table["b"] = Self.session("b", ssrc: 2)
        let a = try #require(table.slot(of: "a"))
        #expect(table.contains(a) && table[a].ssrc == 1 && table.count == 2)
        // Replaced under the same ufrag: the same slot, the new session.
        table["a"] = Self.session("a", ssrc: 3)
        #expect(table.slot(of: "a") == a && table.contains(a) && table[a].ssrc == 3)
        // Removed: the slot is stale, and stays stale when another session takes it.
        #expect(table.removeValue(forKey: "a")?.ssrc == 3)
        #expect(!table.contains(a) && table["a"] == nil && table.slot(of: "a") == nil && table.count == 1)
        table["c"] = Self.session("c", ssrc: 4)
        let c = try #require(table.slot(of: "c"))
        #expect(c.index == a.index && c.generation != a.generation)
        #expect(!table.contains(a) && table.contains(c) && table[c].ssrc == 4)
        // Setting nil removes; a slot out of range is not contained.
        table["b"] = nil
        #expect(table["b"] == nil && table.count == 1)
        #expect(!table.contains(.init(index: 99, generation: 0)) && !table.contains(.init(index: -1, generation: 0)))
    }

    @Test func aSlotsCountOfVerifiedAddressesOutlivesAReplacementButNotARemoval() throws {
        var table = MediaService.SessionTable()
        table["a"] = Self.session("a", ssrc: 1)
        let a = try #require(table.slot(of: "a"))
        table.countVerifiedAddresses(in: a, by: 1)
        table.countVerifiedAddresses(in: a, by: 1)
        table.countVerifiedAddresses(in: a, by: -1)
        #expect(table.verifiedAddresses(in: a) == 1)
        // Replaced under its ufrag: the addresses stay verified, so their count stays.
        table["a"] = Self.session("a", ssrc: 2)
        #expect(table.verifiedAddresses(in: a) == 1)
        // Never below 0; nothing for a stale slot, nor for the session that takes the slot next.
        table.countVerifiedAddresses(in: a, by: -5)
        #expect(table.verifiedAddresses(in: a) == 0)
        table.countVerifiedAddresses(in: a, by: 1)
        table.removeValue(forKey: "a")
        table.countVerifiedAddresses(in: a, by: 1)
        #expect(table.verifiedAddresses(in: a) == 0)
        table["b"] = Self.session("b", ssrc: 3)
        #expect(table.verifiedAddresses(in: try #require(table.slot(of: "b"))) == 0)
    }

    @Test func aSessionChangedThroughItsSlotIsChangedInTheTable() throws {
        var table = MediaService.SessionTable()
        table["a"] = Self.session("a", ssrc: 1)
        let a = try #require(table.slot(of: "a"))
        table[a].packetsSent += 5
        #expect(table["a"]?.packetsSent == 5)
    }
}

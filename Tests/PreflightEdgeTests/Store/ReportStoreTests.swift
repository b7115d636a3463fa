import Foundation
import Logging
import PreflightCore
@testable import PreflightEdge
import PreflightTesting
import Testing

/// The store on each backend: SQLite in memory, an SQLite file, and PostgreSQL (a database of
/// the test's own on the local server; skipped outside CI without one).
@Suite struct ReportStoreTests {
    static let day: Int64 = 1_795_000_000_000  // 2026-11-18T11:06:40Z

    @Test(arguments: StoreHarness.locations())
    func aReportReadsBackByteForByte(_ backend: String) async throws {
        try await StoreHarness.withLocation(backend) { location in
            try await StoreHarness.withStore(location) { store in
                let report = StoreHarness.report(sid: "CA0001", receivedAt: Self.day, mos: 4.25, turn: true, errorCode: 53405)
                try await store.insert(report)
                let read = try #require(try await store.report(account: "AC1", sid: "CA0001"))
                #expect(read == report)
                #expect(read.body.contains("ünïcode ✓"))
                // Another account does not see it.
                #expect(try await store.report(account: "AC2", sid: "CA0001") == nil)
            }
        }
    }

    @Test(arguments: StoreHarness.locations())
    func aSecondReportWithTheSameSidIsAConflict(_ backend: String) async throws {
        try await StoreHarness.withLocation(backend) { location in
            try await StoreHarness.withStore(location) { store in
                try await store.insert(StoreHarness.report(sid: "CA0002", receivedAt: Self.day))
                await #expect(throws: PreflightError.self) {
                    try await store.insert(StoreHarness.report(sid: "CA0002", receivedAt: Self.day + 1))
                }
                do throws(PreflightError) {
                    try await store.insert(StoreHarness.report(sid: "CA0002", receivedAt: Self.day + 1))
                } catch {
                    #expect(error.code == .reportConflict)
                }
                // The same sid in another account is another report.
                try await store.insert(StoreHarness.report(sid: "CA0002", account: "AC2", receivedAt: Self.day))
            }
        }
    }

    @Test(arguments: StoreHarness.locations())
    func everyFilterNarrowsTheListing(_ backend: String) async throws {
        try await StoreHarness.withLocation(backend) { location in
            try await StoreHarness.withStore(location) { store in
                try await store.insert(StoreHarness.report(sid: "R1", identity: "alice", edge: "ashburn", receivedAt: Self.day))
                try await store.insert(StoreHarness.report(sid: "R2", identity: "bob", edge: "ashburn", receivedAt: Self.day + 1000, callQuality: 3))
                try await store.insert(StoreHarness.report(
                    sid: "R3", identity: "bob", edge: "dublin", kind: .lastmileProbe, receivedAt: Self.day + 2000, mos: nil, callQuality: nil, turn: true))
                try await store.insert(StoreHarness.report(sid: "R4", identity: "carol", edge: "dublin", receivedAt: Self.day + 3000, errorCode: 53405))
                try await store.insert(StoreHarness.report(sid: "R5", account: "AC2", receivedAt: Self.day + 4000))
                func sids(_ filter: ReportFilter) async throws -> [String] {
                    try await store.reports(account: "AC1", filter: filter).reports.map(\.sid)
                }
                #expect(try await sids(ReportFilter()) == ["R4", "R3", "R2", "R1"])
                #expect(try await sids(ReportFilter(identity: "bob")) == ["R3", "R2"])
                #expect(try await sids(ReportFilter(edge: "dublin")) == ["R4", "R3"])
                #expect(try await sids(ReportFilter(kind: .lastmileProbe)) == ["R3"])
                #expect(try await sids(ReportFilter(callQuality: 3)) == ["R2"])
                #expect(try await sids(ReportFilter(isTurnRequired: true)) == ["R3"])
                #expect(try await sids(ReportFilter(isTurnRequired: false)) == ["R4", "R2", "R1"])
                #expect(try await sids(ReportFilter(errorCode: 53405)) == ["R4"])
                #expect(try await sids(ReportFilter(from: Self.day + 1000, to: Self.day + 3000)) == ["R3", "R2"])
                // Listings carry no bodies.
                #expect(try await store.reports(account: "AC1", filter: ReportFilter()).reports.allSatisfy(\.body.isEmpty))
                #expect(try await store.reports(account: "AC2", filter: ReportFilter()).reports.map(\.sid) == ["R5"])
            }
        }
    }

    @Test(arguments: StoreHarness.locations())
    func pagesCoverEveryReportOnceNewestFirst(_ backend: String) async throws {
        try await StoreHarness.withLocation(backend) { location in
            try await StoreHarness.withStore(location) { store in
                // Two reports share each received time, so the sid breaks ties.
                for index in 0..<7 {
                    try await store.insert(StoreHarness.report(sid: "P\(index)", receivedAt: Self.day + Int64(index / 2)))
                }
                var seen: [String] = []
                var token: String?
                var pages = 0
                repeat {
                    let page = try await store.reports(account: "AC1", filter: ReportFilter(), pageSize: 3, pageToken: token)
                    seen += page.reports.map(\.sid)
                    token = page.nextPageToken
                    pages += 1
                } while token != nil && pages < 10
                #expect(pages == 3)
                #expect(seen == ["P6", "P5", "P4", "P3", "P2", "P1", "P0"])
                await #expect(throws: PreflightError.self) {
                    _ = try await store.reports(account: "AC1", filter: ReportFilter(), pageToken: "not-a-token")
                }
                await #expect(throws: PreflightError.self) {
                    _ = try await store.reports(account: "AC1", filter: ReportFilter(), pageSize: 0)
                }
            }
        }
    }

    @Test(arguments: StoreHarness.locations())
    func aggregatesPerEdgeAndDay(_ backend: String) async throws {
        try await StoreHarness.withLocation(backend) { location in
            try await StoreHarness.withStore(location) { store in
                let scores = [4.4, 4.1, 3.2, 4.3, 2.9, 4.0, 4.2, 3.9, 4.35, 3.0]
                for (index, mos) in scores.enumerated() {
                    try await store.insert(StoreHarness.report(
                        sid: "A\(index)", receivedAt: Self.day + Int64(index), mos: mos, turn: index % 5 == 0,
                        errorCode: index == 4 ? 53405 : (index == 9 ? 31005 : nil)))
                }
                try await store.insert(StoreHarness.report(sid: "B0", edge: "dublin", receivedAt: Self.day + 86_400_000, mos: nil, turn: nil))
                let rows = try await store.aggregates(account: "AC1", filter: ReportFilter())
                #expect(rows.count == 2)
                let ashburn = try #require(rows.first)
                #expect(ashburn.edge == "ashburn")
                #expect(ashburn.day == "2026-11-18")
                #expect(ashburn.count == 10)
                let sorted = scores.sorted()
                #expect(ashburn.mosMedian == (sorted[4] + sorted[5]) / 2)
                #expect(ashburn.mosPercentile10 == sorted[0])
                #expect(ashburn.turnShare == 0.2)
                #expect(ashburn.failuresByCode == ["53405": 1, "31005": 1])
                let dublin = try #require(rows.last)
                #expect(dublin.edge == "dublin" && dublin.day == "2026-11-19" && dublin.count == 1)
                #expect(dublin.mosMedian == nil && dublin.turnShare == nil && dublin.failuresByCode.isEmpty)
            }
        }
    }

    @Test(arguments: StoreHarness.locations())
    func callEventsReadBackInArrivalOrderForTheirAccountOnly(_ backend: String) async throws {
        try await StoreHarness.withLocation(backend) { location in
            try await StoreHarness.withStore(location) { store in
                let events = (0..<5).map { index in
                    StoredCallEvent(
                        party: index % 2 == 0 ? "caller" : "callee",
                        // Same timestamp and arrival: only the arrival order tells them apart.
                        event: InsightsEvent(group: "connection", name: "e\(index)", timestamp: 1000, payload: ["index": "\(index)"]),
                        receivedAt: Self.day, edge: "ashburn")
                }
                try await store.appendEvents(Array(events.prefix(3)), callSid: "CA9", account: "AC1")
                try await store.appendEvents(Array(events.suffix(2)), callSid: "CA9", account: "AC1")
                #expect(try await store.events(account: "AC1", callSid: "CA9") == events)
                #expect(try await store.events(account: "AC2", callSid: "CA9").isEmpty)
            }
        }
    }

    /// The sweep deletes what is older, of the accounts it is given only (edges sharing a database
    /// each sweep their own), more rows than one step deletes included.
    @Test(arguments: StoreHarness.locations())
    func retentionDeletesOnlyWhatIsOlderOfTheAccountsGiven(_ backend: String) async throws {
        try await StoreHarness.withLocation(backend) { location in
            // Four rows a statement: the sweep takes several of them.
            try await StoreHarness.withStore(location, rowsPerStep: 4) { store in
                let old = store.rowsPerStep * 2 + 3
                for index in 0..<old { try await store.insert(StoreHarness.report(sid: "OLD\(index)", receivedAt: Self.day - Int64(index))) }
                try await store.insert(StoreHarness.report(sid: "NEW", receivedAt: Self.day + 10))
                try await store.insert(StoreHarness.report(sid: "OTHER", account: "AC2", receivedAt: Self.day))
                try await store.appendEvents(
                    [StoredCallEvent(party: "caller", event: InsightsEvent(group: "g", name: "n", timestamp: 1), receivedAt: Self.day, edge: "e")],
                    callSid: "CA1", account: "AC1")
                try await store.appendEvents(
                    [StoredCallEvent(party: "caller", event: InsightsEvent(group: "g", name: "n", timestamp: 1), receivedAt: Self.day, edge: "e")],
                    callSid: "CA1", account: "AC2")
                #expect(try await store.deleteReports(receivedBefore: Self.day + 5, accounts: ["AC1"]) == old)
                #expect(try await store.reports(account: "AC1", filter: ReportFilter()).reports.map(\.sid) == ["NEW"])
                #expect(try await store.events(account: "AC1", callSid: "CA1").isEmpty)
                // Another account's rows, as old, are not this sweep's.
                #expect(try await store.reports(account: "AC2", filter: ReportFilter()).reports.map(\.sid) == ["OTHER"])
                #expect(try await store.events(account: "AC2", callSid: "CA1").count == 1)
            }
        }
    }

    @Test func aFileStoreKeepsItsReportsAcrossRestarts() async throws {
        try await StoreHarness.withLocation("file") { location in
            try await StoreHarness.withStore(location) { store in
                try await store.insert(StoreHarness.report(sid: "KEEP", receivedAt: Self.day))
            }
            try await StoreHarness.withStore(location) { store in
                let kept = try await store.report(account: "AC1", sid: "KEEP")
                #expect(kept?.sid == "KEEP")
            }
        }
    }

    @Test func aStoreANewerEdgeMadeIsRefused() async throws {
        try await StoreHarness.withLocation("file") { location in
            try await StoreHarness.withStore(location) { store in
                try await store.insert(StoreHarness.report(sid: "X", receivedAt: Self.day))
            }
            guard case .sqlite(let path) = location else { return }
            _ = try await ExternalTool.run("python3", ["-c", """
                import sqlite3, sys
                c = sqlite3.connect(sys.argv[1]); c.execute("INSERT INTO preflight_schema VALUES (99, 0)"); c.commit()
                """, path])
            let store = ReportStore(location: location, logger: Logger(label: "test"))
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await store.run() }
                do throws(PreflightError) {
                    try await store.waitUntilReady()
                    Issue.record("a store of schema 99 opened")
                } catch {
                    #expect(error.code == .storeUnavailable)
                    #expect(error.message.contains("newer"))
                }
                group.cancelAll()
            }
        }
    }

    @Test func anUnreachablePostgresFailsWithACode() async throws {
        // Port 9 (discard) on loopback: nothing listens there.
        let location = try StoreLocation(parsing: "postgres://nobody:pw@127.0.0.1:9/none?sslmode=disable")
        let store = ReportStore(location: location, logger: Logger(label: "test"), queryTimeout: .seconds(3))
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await store.run() }
            do throws(PreflightError) {
                try await store.waitUntilReady()
                Issue.record("an unreachable store opened")
            } catch {
                #expect(error.code == .storeUnavailable)
            }
            group.cancelAll()
        }
    }

    @Test(arguments: [
        ("sqlite::memory:", true), ("sqlite:/tmp/x.db", true), ("postgres://u:p@h:5433/db?sslmode=require", true),
        ("postgresql://u@h/db", true), ("mysql://u@h/db", false), ("sqlite:", false), ("postgres://h/db", false),
        ("postgres://u@h/", false), ("postgres://u@h:99999/db", false), ("postgres://u@h/db?sslmode=maybe", false),
        ("postgres://u@h/db?x=1", false),
    ])
    func locationsParse(_ text: String, _ valid: Bool) {
        #expect(((try? StoreLocation(parsing: text)) != nil) == valid, "\(text)")
    }

    @Test func theLocationsDescriptionHidesThePassword() throws {
        let location = try StoreLocation(parsing: "postgres://user:secret@db.example:5433/reports")
        #expect(location.description == "postgres://user@db.example:5433/reports")
        #expect(!location.description.contains("secret"))
    }
}

/// The UTC day of a time, against Foundation's calendar over a spread of times.
@Suite struct ReportDayTests {
    @Test(arguments: [Int64(0), 86_399_999, 86_400_000, 951_782_400_000, 1_795_000_000_000, 4_102_444_800_000, 253_402_300_799_999])
    func daysMatchFoundation(_ milliseconds: Int64) {
        let formatter = DateFormatter()
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        let expected = formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        #expect(ReportStore.day(milliseconds) == expected)
    }
}

/// The store's own limits and lifecycle.
@Suite struct ReportStoreLimitTests {
    @Test func anInMemoryStoreKeepsItsNewestReportsWithinItsLimit() async throws {
        let store = ReportStore(location: .sqliteInMemory, logger: Logger(label: "test"), memoryLimit: 20_000)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await store.run() }
            defer { group.cancelAll() }
            try await store.waitUntilReady()
            var report = StoredReport(
                sid: "", kind: .preflightTest, account: "AC1", identity: "alice", edge: "e", receivedAt: 0, summary: ReportSummary(),
                body: #"{"pad":""# + String(repeating: "x", count: 1000) + #""}"#)
            for index in 0..<50 {
                report.sid = "R\(index)"
                report.receivedAt = 1_795_000_000_000 + Int64(index)
                try await store.insert(report)
            }
            let kept = try await store.reports(account: "AC1", filter: ReportFilter(), pageSize: 200).reports.map(\.sid)
            let each = ReportStore.storedBytes(report)
            #expect(kept.count * each <= 20_000, "\(kept.count) reports of \(each) bytes kept")
            #expect(kept.count >= 5)
            // The newest, in order, without a gap.
            #expect(kept == (50 - kept.count..<50).reversed().map { "R\($0)" })
        }
    }

    /// One identity's flood, of reports and of events, is evicted before anyone else's rows:
    /// another identity of the account and another account keep every report.
    @Test func aFloodEvictsTheFloodersOwnRowsFirst() async throws {
        let store = ReportStore(
            location: .sqliteInMemory, logger: Logger(label: "test"), memoryLimit: 60_000,
            quota: StoreQuota.Limits(identityBytes: 1 << 30, identityRows: 1 << 30, accountBytes: 1 << 30, accountRows: 1 << 30),
            rowsPerStep: 8)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await store.run() }
            defer { group.cancelAll() }
            try await store.waitUntilReady()
            let pad = #"{"pad":""# + String(repeating: "x", count: 2000) + #""}"#
            func report(_ sid: String, _ account: String, _ identity: String, _ time: Int64) -> StoredReport {
                StoredReport(
                    sid: sid, kind: .preflightTest, account: account, identity: identity, edge: "e", receivedAt: time, summary: ReportSummary(),
                    body: pad)
            }
            for index in 0..<5 {
                try await store.insert(report("A\(index)", "AC1", "alice", 1000 + Int64(index)))
                try await store.insert(report("B\(index)", "AC2", "bob", 1000 + Int64(index)))
            }
            // Mallory, of alice's account, floods: reports, then events, all newer than the victims'.
            for index in 0..<60 { try await store.insert(report("M\(index)", "AC1", "mallory", 5000 + Int64(index))) }
            for batch in 0..<5 {
                let events = (0..<40).map { _ in
                    StoredCallEvent(
                        party: "caller", event: InsightsEvent(group: "g", name: "n", timestamp: 1, payload: ["v": String(repeating: "y", count: 400)]),
                        receivedAt: 9000 + Int64(batch), edge: "e", identity: "mallory")
                }
                try await store.appendEvents(events, callSid: "CAflood", account: "AC1")
            }
            #expect(store.storedBytes <= 60_000)
            #expect(store.rowsEvicted > 0)
            let alice = try await store.reports(account: "AC1", filter: ReportFilter(identity: "alice"), pageSize: 200).reports.map(\.sid)
            let bob = try await store.reports(account: "AC2", filter: ReportFilter(), pageSize: 200).reports.map(\.sid)
            #expect(Set(alice) == Set((0..<5).map { "A\($0)" }), "alice kept \(alice.count) of 5")
            #expect(Set(bob) == Set((0..<5).map { "B\($0)" }), "bob kept \(bob.count) of 5")
            // Of mallory's own, the newest are what is left.
            let mallory = try await store.reports(account: "AC1", filter: ReportFilter(identity: "mallory"), pageSize: 200).reports.map(\.sid)
            if let oldest = mallory.last { #expect(Int(oldest.dropFirst()) ?? 0 > 0) }
        }
    }

    @Test func waitingForAStoreThatNeverRunsEndsWhenCancelled() async throws {
        let store = ReportStore(location: .sqliteInMemory, logger: Logger(label: "test"))
        let waiter = Task { () async -> PreflightError.Code? in
            do {
                try await store.waitUntilReady()
                return nil
            } catch let error as PreflightError {
                return error.code
            } catch {
                return nil
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        waiter.cancel()
        #expect(await waiter.value == .cancelled)
    }

    @Test(.enabled(if: PostgresTestDatabase.canRun, Comment(rawValue: PostgresTestDatabase.skipReason)))
    func twoStoresMigratingOneNewDatabaseAtOnceBothOpen() async throws {
        let database = try await PostgresTestDatabase.create()
        try await withBlockingCleanup({ database.drop() }) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                let stores = (0..<3).map { _ in ReportStore(location: database.location, logger: Logger(label: "test")) }
                for store in stores { group.addTask { try await store.run() } }
                defer { group.cancelAll() }
                for store in stores { try await store.waitUntilReady() }
            }
            // Each version once: no step ran twice.
            #expect(try await PostgresTestDatabase.psql("SELECT count(*) FROM preflight_schema", database: database.name)
                .trimmingCharacters(in: .whitespacesAndNewlines) == "\(ReportStore.schemaVersion)")
        }
    }
}

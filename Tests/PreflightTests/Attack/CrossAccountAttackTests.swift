import Foundation
import PreflightCore
import PreflightEdge
import PreflightNIO
import PreflightTesting
import Testing

extension AttackTests {
    /// Two edge processes of two accounts on one database (a shared PostgreSQL, a shared SQLite
    /// file): each account's API key reads its own reports, aggregates and call events only,
    /// whatever sid, filter or page token it tries, and a sid one account uses is no claim on the
    /// other's.
    @Suite(.serialized) struct CrossAccount {
        static let otherAccount = "AC22222222222222222222222222222222"
        static let otherKey = "SK22222222222222222222222222222222"

        enum Database: String, CaseIterable, CustomTestStringConvertible {
            case postgreSQL, sqliteFile
            var testDescription: String { rawValue }
        }

        /// `GET path` with `edge`'s own API key: status and body.
        static func get(_ edge: AttackedEdge, _ path: String) async throws -> (status: UInt, text: String) {
            let basic = Data("\(edge.edge.apiKeySID):\(edge.edge.secret)".utf8).base64EncodedString()
            let reply = try await EdgeHTTPClient.send(
                edge: edge.edge.signalingURL, method: "GET", path: path, authorization: "Basic \(basic)", timeout: .seconds(20),
                maximumLength: 8 << 20, failure: .malformed)
            return (reply.status, String(decoding: reply.body, as: UTF8.self))
        }

        static func listed(_ edge: AttackedEdge, _ query: String = "") async throws -> ReportAPI.Page {
            let (status, text) = try await get(edge, "/v1/reports\(query)")
            #expect(status == 200, "\(query): \(text)")
            return try JSONDecoder().decode(ReportAPI.Page.self, from: Data(text.utf8))
        }

        /// Uploads a preflight test report with `callSid` and `mos` as `identity`: its sid.
        static func upload(_ edge: AttackedEdge, callSid: String, mos: Double, identity: String) async throws -> String {
            let sidField = callSid.isEmpty ? "" : #""callSid":"\#(callSid)","#
            let body = #"{\#(sidField)"networkStats":{"mos":{"average":\#(mos)}}}"#
            let (status, text) = try await ReportEndpoints.post(
                edge, Array(body.utf8), token: try await edge.token(identity: identity))
            #expect(status == 201, "\(text)")
            struct Receipt: Decodable { var sid: String }
            return try JSONDecoder().decode(Receipt.self, from: Data(text.utf8)).sid
        }

        /// A feedback event on `callSid` by `token`'s identity, waited for until the store has it.
        static func postFeedback(_ edge: AttackedEdge, _ token: String, _ callSid: String) async throws {
            let socket = try await CallLimits.session(edge, token)
            try await socket.send(.insights(.init(callSid: callSid, events: [InsightsEvent(.feedback, "received", timestamp: 1)])))
            #expect(try await CallLimits.eventsKept(edge, callSid) == 1)
            await socket.close()
        }

        @Test(arguments: Database.allCases)
        func anAccountReadsOnlyItsOwnOnASharedDatabase(_ database: Database) async throws {
            let location: String
            var cleanup: @Sendable () -> Void = {}
            // Runs SQL on the shared database as its administrator would (the retention part).
            let runSQL: @Sendable (String) async throws -> Void
            switch database {
            case .postgreSQL:
                guard PostgresTestDatabase.canRun else {
                    print("skipped: \(PostgresTestDatabase.skipReason)")
                    return
                }
                let created = try await PostgresTestDatabase.create()
                location = created.url
                cleanup = { created.drop() }
                runSQL = { _ = try await PostgresTestDatabase.psql($0, database: created.name) }
            case .sqliteFile:
                let path = FileManager.default.temporaryDirectory.appendingPathComponent("preflight-accounts-\(UUID().uuidString).sqlite").path
                location = "sqlite:\(path)"
                cleanup = { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
                runSQL = { _ = try await ExternalTool.run("sqlite3", ["-cmd", ".timeout 10000", path, $0]) }
            }
            defer { cleanup() }
            let ashburn = try await AttackedEdge.start(["--database", location, "--edge-name", "ashburn"])
            defer { ashburn.stop() }
            let dublin = try await AttackedEdge.start(
                ["--database", location, "--edge-name", "dublin"], account: Self.otherAccount, apiKeySID: Self.otherKey)
            defer { dublin.stop() }

            // A real call on each, then its report, and feedback on it through Insights.
            let alice = try await ashburn.token(identity: "alice")
            let mallory = try await dublin.token(identity: "mallory")
            let callA = try await CallLimits.echoCall(ashburn, alice)
            let callB = try await CallLimits.echoCall(dublin, mallory)
            #expect(try await Self.upload(ashburn, callSid: callA, mos: 4.1, identity: "alice") == callA)
            #expect(try await Self.upload(dublin, callSid: callB, mos: 1.4, identity: "mallory") == callB)
            // Mallory squats Alice's call sid from the other account: her report gets its own sid.
            let squat = try await Self.upload(dublin, callSid: callA, mos: 1.2, identity: "mallory")
            #expect(squat.hasPrefix("RP"))
            let second = try await Self.upload(ashburn, callSid: "", mos: 4.3, identity: "alice")
            try await Self.postFeedback(ashburn, alice, callA)
            try await Self.postFeedback(dublin, mallory, callB)

            struct Side {
                var edge: AttackedEdge
                var name: String
                var own: Set<String>
                var ownCall: String
                var foreign: [String]
                var foreignCall: String
                var foreignIdentity: String
                var foreignEdge: String
                var mos: String
            }
            let sides = [
                Side(edge: ashburn, name: "ashburn", own: [callA, second], ownCall: callA, foreign: [callB, squat],
                    foreignCall: callB, foreignIdentity: "mallory", foreignEdge: "dublin", mos: "4.1"),
                Side(edge: dublin, name: "dublin", own: [callB, squat], ownCall: callB, foreign: [callA, second],
                    foreignCall: callA, foreignIdentity: "alice", foreignEdge: "ashburn", mos: "1.4"),
            ]
            for side in sides {
                let name = side.name
                let page = try await Self.listed(side.edge)
                #expect(Set(page.reports.map(\.sid)) == side.own, "\(name)")
                #expect(page.reports.allSatisfy { $0.edge == name }, "\(name)")
                let (status, text) = try await Self.get(side.edge, "/v1/reports/\(side.ownCall)")
                #expect(status == 200 && text.contains(side.mos), "\(name): \(text)")
                // The other account's sids, its edge, its identity, its call's events: nothing.
                for sid in side.foreign where !side.own.contains(sid) {
                    #expect(try await Self.get(side.edge, "/v1/reports/\(sid)").status == 404, "\(name): \(sid)")
                }
                #expect(try await Self.listed(side.edge, "?edge=\(side.foreignEdge)").reports.isEmpty, "\(name)")
                #expect(try await Self.listed(side.edge, "?identity=\(side.foreignIdentity)").reports.isEmpty, "\(name)")
                #expect(try await CallLimits.events(side.edge, side.foreignCall) == nil, "\(name)")
                #expect(try await CallLimits.events(side.edge, side.ownCall)?.kept == 1, "\(name)")
                // Pages: this account's rows only.
                let first = try await Self.listed(side.edge, "?pageSize=1")
                let token = try #require(first.nextPageToken, "\(name)")
                let rest = try await Self.listed(side.edge, "?pageSize=1&pageToken=\(token)")
                #expect(Set(first.reports.map(\.sid) + rest.reports.map(\.sid)) == side.own, "\(name)")
                // Aggregates: this account's two reports only.
                struct Aggregates: Decodable { var aggregates: [ReportAggregate] }
                let aggregates = try JSONDecoder().decode(
                    Aggregates.self, from: Data(try await Self.get(side.edge, "/v1/aggregates").text.utf8)).aggregates
                #expect(aggregates.map(\.count).reduce(0, +) == 2, "\(name)")
                #expect(aggregates.allSatisfy { $0.edge == name }, "\(name)")
                print(
                    "cross-account, \(database), \(name): lists \(page.reports.count) of its own, the other's \(side.foreign.count) sids 404, its call's events \(try await CallLimits.events(side.edge, side.ownCall)?.kept ?? 0), the other's call 404, aggregates count \(aggregates.map(\.count).reduce(0, +))")
            }
            // One account's page token on the other's edge: none of the first account's rows.
            let tokenA = try #require(try await Self.listed(ashburn, "?pageSize=1").nextPageToken)
            let (status, text) = try await Self.get(dublin, "/v1/reports?pageSize=1&pageToken=\(tokenA)")
            print("cross-account, \(database): ashburn's page token on dublin: HTTP \(status)")
            if status == 200 {
                let page = try JSONDecoder().decode(ReportAPI.Page.self, from: Data(text.utf8))
                #expect(Set(page.reports.map(\.sid)).isSubset(of: [callB, squat]), "\(text)")
            } else {
                #expect(status == 400, "\(text)")
            }
            for edge in [ashburn, dublin] {
                try await edge.expectAlive()
                try edge.expectSaneLog()
            }

            // Retention: every row made 40 days old, then ashburn restarts with 30 days. Its sweep
            // (at start) deletes its own account's rows, none of the other account's.
            guard database == .postgreSQL || ExternalTool.isCI || ExternalTool.isAvailable("sqlite3") else {
                print("cross-account retention on a SQLite file skipped: needs the sqlite3 command (apt-get install sqlite3)")
                return
            }
            ashburn.stop()
            let fortyDays = Int64(40 * 86_400_000)
            try await runSQL(
                "UPDATE preflight_reports SET received_at = received_at - \(fortyDays); UPDATE preflight_call_events SET received_at = received_at - \(fortyDays);")
            let restarted = try await AttackedEdge.start(["--database", location, "--edge-name", "ashburn", "--retention-days", "30"])
            defer { restarted.stop() }
            _ = try await eventually(every: .milliseconds(50)) { try await Self.listed(restarted).reports.isEmpty }
            #expect(try await Self.listed(restarted).reports.isEmpty, "ashburn's sweep deleted its own old reports")
            #expect(try await CallLimits.events(restarted, callA) == nil)
            let kept = try await Self.listed(dublin).reports.map(\.sid)
            #expect(Set(kept) == [callB, squat], "the other account's old reports stay")
            #expect(try await CallLimits.events(dublin, callB)?.kept == 1)
            print("cross-account, \(database): ashburn's 30-day sweep left ashburn 0 reports, dublin \(kept.count) of 2")
        }
    }
}

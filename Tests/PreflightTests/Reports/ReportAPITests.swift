import Foundation
import Preflight
import PreflightCore
import PreflightEdge
import PreflightNIO
import PreflightTesting
import Testing

/// The REST API: an API key sees its own account's reports only, filters and pages work, and
/// every bad request gets a coded refusal.
@Suite(.realTime, .serialized) struct ReportAPITests {
    static let otherKey = "SK11111111111111111111111111111111"
    static let otherAccount = "AC11111111111111111111111111111111"

    /// Uploads a report body of `kind` with a token of `identity`; the status and body.
    static func upload(_ edge: LocalEdge, _ body: String, kind: String = "preflightTest", identity: String = "alice") async throws -> (UInt, String) {
        let token = try await edge.token(identity: identity)
        let reply = try await EdgeHTTPClient.send(
            edge: edge.signalingURL, method: "POST", path: "/v1/reports?kind=\(kind)", authorization: "Bearer \(token)",
            body: Array(body.utf8), timeout: .seconds(10), maximumLength: 1 << 16, failure: .malformed)
        return (reply.status, String(decoding: reply.body, as: UTF8.self))
    }

    /// The sid of a 201's receipt.
    static func sid(_ reply: (UInt, String)) throws -> String {
        struct Receipt: Decodable { var sid: String }
        return try JSONDecoder().decode(Receipt.self, from: Data(reply.1.utf8)).sid
    }

    static func configuration() -> EdgeConfiguration {
        var configuration = LocalEdge.configuration()
        configuration.apiKeys[otherKey] = LocalEdge.randomSecret()
        configuration.accounts[otherKey] = otherAccount
        return configuration
    }

    @Test func anAPIKeySeesOnlyItsOwnAccount() async throws {
        try await LocalEdge.withRunning(configuration: Self.configuration()) { edge in
            let reply = try await Self.upload(edge, #"{"callSid":"CAone","networkStats":{"mos":{"average":4.1}}}"#)
            #expect(reply.0 == 201)
            let sid = try Self.sid(reply)
            let own = try await ReportAPI.get(edge, "/v1/reports")
            #expect(String(decoding: own.body, as: UTF8.self).contains(sid))
            let other = try await ReportAPI.get(edge, "/v1/reports", key: Self.otherKey)
            #expect(other.status == 200)
            #expect(try JSONDecoder().decode(ReportAPI.Page.self, from: Data(other.body)).reports.isEmpty)
            #expect(try await ReportAPI.get(edge, "/v1/reports/\(sid)", key: Self.otherKey).status == 404)
            #expect(try await ReportAPI.get(edge, "/v1/reports/\(sid)").status == 200)
        }
    }

    @Test func wrongOrMissingCredentialsAre401() async throws {
        try await LocalEdge.withRunning { edge in
            for path in ["/v1/reports", "/v1/reports/CAx", "/v1/aggregates", "/v1/calls/CAx/events", "/metrics"] {
                #expect(try await ReportAPI.get(edge, path, secret: "wrong-secret-wrong-secret-wrong-secret").status == 401, "\(path)")
                #expect(try await ReportAPI.get(edge, path, key: "SKnobody", secret: "x").status == 401, "\(path)")
            }
            // An access token is for uploads only, not for reading.
            let token = try await edge.token()
            let reply = try await EdgeHTTPClient.send(
                edge: edge.signalingURL, method: "GET", path: "/v1/reports", authorization: "Bearer \(token)", timeout: .seconds(5),
                maximumLength: 1 << 16, failure: .malformed)
            #expect(reply.status == 401)
            // And an API key cannot upload.
            let basic = Data("\(LocalEdge.apiKeySID):\(edge.server.configuration.apiKeys[LocalEdge.apiKeySID] ?? "")".utf8).base64EncodedString()
            let upload = try await EdgeHTTPClient.send(
                edge: edge.signalingURL, method: "POST", path: "/v1/reports?kind=preflightTest", authorization: "Basic \(basic)",
                body: Array("{}".utf8), timeout: .seconds(5), maximumLength: 1 << 16, failure: .malformed)
            #expect(upload.status == 401)
        }
    }

    @Test(arguments: [
        (#"{"callSid":"CA1"}"#, "nope", 400, 70702),
        ("[1,2,3]", "preflightTest", 400, 70702),
        (#"{"callSid":"CA1""#, "preflightTest", 400, 70702),
        (#"{"callSid":"CA 1 <script>"}"#, "preflightTest", 400, 70702),
        (#"{"callSid":"\#(String(repeating: "A", count: 65))"}"#, "preflightTest", 400, 70702),
    ])
    func badUploadsAreRefusedWithACode(_ body: String, _ kind: String, _ status: Int, _ code: Int) async throws {
        try await LocalEdge.withRunning { edge in
            let (got, text) = try await Self.upload(edge, body, kind: kind)
            #expect(Int(got) == status, "\(text)")
            #expect(try JSONDecoder().decode(ReportAPI.Refusal.self, from: Data(text.utf8)).code == code)
            #expect(try await ReportAPI.decode(ReportAPI.Page.self, edge, "/v1/reports").reports.isEmpty)
        }
    }

    @Test func aCallSidIsKeptOnlyForItsOwnCallerAndOnlyOnce() async throws {
        try await LocalEdge.withRunning { edge in
            var options = PreflightOptions(accessToken: try await edge.token(identity: "alice"), edgeURL: edge.signalingURL, duration: .seconds(1))
            options.uploadsReport = false
            let callSid = try await PreflightTest.run(options: options).result().callSid
            // Mallory, of the same account, cannot take Alice's call sid: her report gets its own.
            let squatter = try await Self.upload(edge, #"{"callSid":"\#(callSid)","n":0}"#, identity: "mallory")
            #expect(squatter.0 == 201)
            #expect(try Self.sid(squatter).hasPrefix("RP"))
            let first = try await Self.upload(edge, #"{"callSid":"\#(callSid)","n":1}"#, identity: "alice")
            #expect(try Self.sid(first) == callSid)
            let (status, text) = try await Self.upload(edge, #"{"callSid":"\#(callSid)","n":2}"#, identity: "alice")
            #expect(status == 409)
            #expect(try JSONDecoder().decode(ReportAPI.Refusal.self, from: Data(text.utf8)).code == 70703)
            let stored = try await ReportAPI.storedReport(edge, sid: callSid)
            #expect(String(decoding: stored, as: UTF8.self).contains("\"n\":1"))
        }
    }

    @Test(arguments: [
        "from=yesterday", "to=-5", "kind=video", "callQuality=5", "callQuality=x", "isTurnRequired=yes", "errorCode=1e3",
        "pageSize=0", "pageSize=201", "pageToken=abc", "identity=",
    ])
    func badQueriesAre400With70707(_ query: String) async throws {
        try await LocalEdge.withRunning { edge in
            let (status, body) = try await ReportAPI.get(edge, "/v1/reports?\(query)")
            #expect(status == 400, "\(query): \(String(decoding: body, as: UTF8.self))")
            #expect(try JSONDecoder().decode(ReportAPI.Refusal.self, from: Data(body)).code == 70707)
        }
    }

    @Test func filtersPagesAndAggregatesOverHTTP() async throws {
        try await LocalEdge.withRunning { edge in
            let scores = [4.4, 3.1, 4.2, 2.0, 4.0]
            var sids: [String] = []
            for (index, mos) in scores.enumerated() {
                let turn = index == 1 ? "true" : "false"
                let error = index == 3 ? #","error":{"code":53405,"message":"ice"}"# : ""
                let body = #"{"callQuality":\#(index % 5),"isTurnRequired":"\#(turn)","networkStats":{"mos":{"average":\#(mos)},"rtt":{"average":40}}\#(error)}"#
                let reply = try await Self.upload(edge, body, identity: index < 2 ? "alice" : "bob")
                #expect(reply.0 == 201)
                sids.append(try Self.sid(reply))
            }
            func listed(_ query: String) async throws -> [String] {
                try await ReportAPI.decode(ReportAPI.Page.self, edge, "/v1/reports?\(query)").reports.map(\.sid)
            }
            #expect(Set(try await listed("identity=alice")) == Set(sids[0...1]))
            #expect(try await listed("isTurnRequired=true") == [sids[1]])
            #expect(try await listed("errorCode=53405") == [sids[3]])
            #expect(try await listed("callQuality=2") == [sids[2]])
            #expect(try await listed("from=2000-01-01T00:00:00Z&kind=preflightTest").count == 5)
            #expect(try await listed("to=2000-01-01T00:00:00Z").isEmpty)
            let first = try await ReportAPI.decode(ReportAPI.Page.self, edge, "/v1/reports?pageSize=2")
            let token = try #require(first.nextPageToken)
            let second = try await ReportAPI.decode(ReportAPI.Page.self, edge, "/v1/reports?pageSize=2&pageToken=\(token)")
            #expect(Set(first.reports.map(\.sid)).isDisjoint(with: second.reports.map(\.sid)))
            struct Aggregates: Decodable { var aggregates: [ReportAggregate] }
            let aggregates = try await ReportAPI.decode(Aggregates.self, edge, "/v1/aggregates").aggregates
            #expect(aggregates.map(\.count).reduce(0, +) == 5)
            // Uploads that straddle midnight (UTC) make two days: the figures are checked on one.
            if aggregates.count == 1, let row = aggregates.first {
                #expect(row.edge == "local")
                #expect(row.mosMedian == 4.0)
                #expect(row.mosPercentile10 == 2.0)
                #expect(row.turnShare == 0.2)
                #expect(row.failuresByCode == ["53405": 1])
            }
        }
    }

    /// Each caller spends its own bucket: an account's API requests over their rate get 429, and
    /// its users' uploads still go; an identity's uploads over their rate get 429, and neither the
    /// admin's reads nor another identity's uploads are touched.
    @Test func eachCallerOverItsOwnRateIs429AndNoOneElse() async throws {
        var configuration = LocalEdge.configuration()
        // One token a hundred seconds: the test never sees one come back.
        configuration.rateLimits.apiRequests = .init(perSecond: 0.01, burst: 3)
        configuration.rateLimits.identityUploads = .init(perSecond: 0.01, burst: 2)
        try await LocalEdge.withRunning(configuration: configuration) { edge in
            var statuses: [UInt] = []
            for _ in 0..<5 { statuses.append(try await ReportAPI.get(edge, "/v1/reports").status) }
            #expect(statuses.prefix(3).allSatisfy { $0 == 200 })
            #expect(statuses.last == 429)
            // The admin is over the rate; a user's upload is not the admin's.
            let (first, _) = try await Self.upload(edge, #"{"callSid":"CAfirst"}"#)
            #expect(first == 201)
            let (second, _) = try await Self.upload(edge, #"{"callSid":"CAsecond"}"#)
            #expect(second == 201)
            let (third, body) = try await Self.upload(edge, #"{"callSid":"CAthird"}"#)
            #expect(third == 429)
            #expect(try JSONDecoder().decode(ReportAPI.Refusal.self, from: Data(body.utf8)).code == 70706)
            // Another identity of the account still uploads.
            let (other, _) = try await Self.upload(edge, #"{"callSid":"CAother"}"#, identity: "bob")
            #expect(other == 201)
        }
    }
}

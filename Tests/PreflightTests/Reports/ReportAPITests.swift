import Foundation
import Preflight
import PreflightCore
import PreflightEdge
import PreflightNIO
import PreflightTesting
import Testing

/// The REST API: an API key sees its own account's reports only, filters and pages work, and
/// every bad request gets a coded refusal.
@Suite(.serialized) struct ReportAPITests {
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

    static func configuration() -> EdgeConfiguration {
        var configuration = LocalEdge.configuration()
        configuration.apiKeys[otherKey] = LocalEdge.randomSecret()
        configuration.accounts[otherKey] = otherAccount
        return configuration
    }

    @Test func anAPIKeySeesOnlyItsOwnAccount() async throws {
        try await LocalEdge.withRunning(configuration: Self.configuration()) { edge in
            #expect(try await Self.upload(edge, #"{"callSid":"CAone","networkStats":{"mos":{"average":4.1}}}"#).0 == 201)
            let own = try await ReportAPI.get(edge, "/v1/reports")
            #expect(String(decoding: own.body, as: UTF8.self).contains("CAone"))
            let other = try await ReportAPI.get(edge, "/v1/reports", key: Self.otherKey)
            #expect(other.status == 200)
            #expect(try JSONDecoder().decode(ReportAPI.Page.self, from: Data(other.body)).reports.isEmpty)
            #expect(try await ReportAPI.get(edge, "/v1/reports/CAone", key: Self.otherKey).status == 404)
            #expect(try await ReportAPI.get(edge, "/v1/reports/CAone").status == 200)
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

    @Test func aSecondUploadWithTheSameSidIs409AndKeepsTheFirst() async throws {
        try await LocalEdge.withRunning { edge in
            #expect(try await Self.upload(edge, #"{"callSid":"CAsame","n":1}"#).0 == 201)
            let (status, text) = try await Self.upload(edge, #"{"callSid":"CAsame","n":2}"#, identity: "mallory")
            #expect(status == 409)
            #expect(try JSONDecoder().decode(ReportAPI.Refusal.self, from: Data(text.utf8)).code == 70703)
            let stored = try await ReportAPI.storedReport(edge, sid: "CAsame")
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
            for (index, mos) in scores.enumerated() {
                let turn = index == 1 ? "true" : "false"
                let error = index == 3 ? #","error":{"code":53405,"message":"ice"}"# : ""
                let body = #"{"callSid":"CA\#(index)","callQuality":\#(index % 5),"isTurnRequired":"\#(turn)","networkStats":{"mos":{"average":\#(mos)},"rtt":{"average":40}}\#(error)}"#
                #expect(try await Self.upload(edge, body, identity: index < 2 ? "alice" : "bob").0 == 201)
            }
            func sids(_ query: String) async throws -> [String] {
                try await ReportAPI.decode(ReportAPI.Page.self, edge, "/v1/reports?\(query)").reports.map(\.sid)
            }
            #expect(try await sids("identity=alice") == ["CA1", "CA0"])
            #expect(try await sids("isTurnRequired=true") == ["CA1"])
            #expect(try await sids("errorCode=53405") == ["CA3"])
            #expect(try await sids("callQuality=2") == ["CA2"])
            #expect(try await sids("from=2000-01-01T00:00:00Z&kind=preflightTest").count == 5)
            #expect(try await sids("to=2000-01-01T00:00:00Z").isEmpty)
            let first = try await ReportAPI.decode(ReportAPI.Page.self, edge, "/v1/reports?pageSize=2")
            let token = try #require(first.nextPageToken)
            let second = try await ReportAPI.decode(ReportAPI.Page.self, edge, "/v1/reports?pageSize=2&pageToken=\(token)")
            #expect(Set(first.reports.map(\.sid)).isDisjoint(with: second.reports.map(\.sid)))
            struct Aggregates: Decodable { var aggregates: [ReportAggregate] }
            let aggregates = try await ReportAPI.decode(Aggregates.self, edge, "/v1/aggregates").aggregates
            let row = try #require(aggregates.first)
            #expect(aggregates.count == 1)
            #expect(row.edge == "local" && row.count == 5)
            #expect(row.mosMedian == 4.0)
            #expect(row.mosPercentile10 == 2.0)
            #expect(row.turnShare == 0.2)
            #expect(row.failuresByCode == ["53405": 1])
        }
    }

    @Test func anAccountOverItsRateIs429() async throws {
        var configuration = LocalEdge.configuration()
        configuration.apiRate = 1
        configuration.apiBurst = 3
        try await LocalEdge.withRunning(configuration: configuration) { edge in
            var statuses: [UInt] = []
            for _ in 0..<5 { statuses.append(try await ReportAPI.get(edge, "/v1/reports").status) }
            #expect(statuses.prefix(3).allSatisfy { $0 == 200 })
            #expect(statuses.last == 429)
            let (status, body) = try await Self.upload(edge, #"{"callSid":"CAlimited"}"#)
            #expect(status == 429)
            #expect(try JSONDecoder().decode(ReportAPI.Refusal.self, from: Data(body.utf8)).code == 70706)
        }
    }
}

import Foundation
import PreflightCore
import PreflightEdge
import PreflightNIO
import Testing

extension AttackTests {
    /// `POST /v1/reports` and the REST API on a real edge process: hostile bodies, tokens, sids
    /// and query strings get coded refusals, the edge stays up with bounded memory, and no
    /// account reads another's reports.
    @Suite(.serialized) struct ReportEndpoints {
        static func post(_ edge: AttackedEdge, _ body: [UInt8], kind: String = "preflightTest", token: String) async throws -> (UInt, String) {
            let reply = try await EdgeHTTPClient.send(
                edge: edge.edge.signalingURL, method: "POST", path: "/v1/reports?kind=\(kind)", authorization: "Bearer \(token)",
                body: body, timeout: .seconds(20), maximumLength: 1 << 16, failure: .malformed)
            return (reply.status, String(decoding: reply.body, as: UTF8.self))
        }

        static func get(_ edge: AttackedEdge, _ path: String) async throws -> (UInt, String) {
            let basic = Data("\(edge.edge.apiKeySID):\(edge.edge.secret)".utf8).base64EncodedString()
            let reply = try await EdgeHTTPClient.send(
                edge: edge.edge.signalingURL, method: "GET", path: path, authorization: "Basic \(basic)", timeout: .seconds(10),
                maximumLength: 1 << 20, failure: .malformed)
            return (reply.status, String(decoding: reply.body, as: UTF8.self))
        }

        static func code(_ text: String) -> Int? {
            struct Refusal: Decodable { var code: Int }
            return try? JSONDecoder().decode(Refusal.self, from: Data(text.utf8)).code
        }

        @Test func hostileBodiesAreRefusedAndNothingIsStored() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let deep = Array(String(repeating: "[", count: 200_000).utf8)
            let deepObject = Array((#"{"a":"# + String(repeating: #"{"a":"#, count: 100_000)).utf8)
            let utf16 = Array(#"{"a":1}"#.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
            let cases: [(String, [UInt8], UInt, Int)] = [
                ("invalid UTF-8", [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D], 400, 70702),
                ("200k nested arrays", deep, 400, 70702),
                ("100k nested objects", deepObject, 400, 70702),
                ("a bare string", Array(#""report""#.utf8), 400, 70702),
                ("an array", Array("[1,2,3]".utf8), 400, 70702),
                ("NUL bytes", [0x7B, 0x00, 0x7D], 400, 70702),
                ("UTF-16", [0xFE, 0xFF] + utf16, 400, 70702),
                ("a byte order mark", [0xEF, 0xBB, 0xBF] + Array(#"{"a":1}"#.utf8), 400, 70702),
                ("a lone surrogate", Array(#"{"a":"\ud800"}"#.utf8), 400, 70702),
                ("1e400", Array(#"{"a":1e400}"#.utf8), 400, 70702),
                ("NaN", Array(#"{"a":NaN}"#.utf8), 400, 70702),
                ("Infinity", Array(#"{"a":Infinity}"#.utf8), 400, 70702),
                ("a trailing comma", Array(#"{"a":1,}"#.utf8), 400, 70702),
                ("two objects", Array(#"{"a":1}{"b":2}"#.utf8), 400, 70702),
                ("an escape in a string", Array(#"{"a":""#.utf8) + [0x1B] + Array(#"[2J"}"#.utf8), 400, 70702),
                ("a sid with a quote", Array(#"{"callSid":"CA\"><script>"}"#.utf8), 400, 70702),
                ("a sid with a path", Array(#"{"callSid":"../../etc/passwd"}"#.utf8), 400, 70702),
                ("MOS 1.7e308", Array(#"{"networkStats":{"mos":{"average":1.7e308}}}"#.utf8), 400, 70702),
                ("over 1 MiB", Array(#"{"pad":""#.utf8) + Array(repeating: 0x61, count: 1 << 20) + Array(#""}"#.utf8), 413, 70702),
            ]
            // Every kind reads the same body the same strict way (the MOS and the sid only where the
            // kind has them: a preflight test's); an identity a kind, each within its upload burst.
            for kind in ReportKind.allCases {
                let token = try await edge.token(identity: "hostile-\(kind.rawValue)")
                for (name, body, status, code) in cases
                where kind == .preflightTest || !(name.hasPrefix("MOS") || name.hasPrefix("a sid")) {
                    let (got, text) = try await Self.post(edge, body, kind: kind.rawValue, token: token)
                    #expect(got == status, "\(kind.rawValue), \(name): \(text)")
                    #expect(Self.code(text) == code, "\(kind.rawValue), \(name): \(text)")
                }
            }
            #expect(try await Self.get(edge, "/v1/reports").1 == #"{"reports":[]}"#)
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }

        @Test func tokensThatAreNotValidCannotUpload() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let forged = AttackedEdge.handMade(header: AttackedEdge.header, payload: AttackedEdge.claims(), secret: "not-the-secret-not-the-secret-not-the-secret")
            let expired = edge.handMade(payload: AttackedEdge.claims(exp: "1000", iat: "900"))
            for token in [forged, expired, "", "a.b.c", String(repeating: "x", count: 9000)] {
                let (status, text) = try await Self.post(edge, Array("{}".utf8), token: token)
                #expect(status == 401, "\(text)")
                #expect((20101...20199).contains(Self.code(text) ?? 0), "\(text)")
            }
            #expect(try await Self.get(edge, "/v1/reports").1 == #"{"reports":[]}"#)
        }

        @Test func hostileQueriesAndSidsGetCodedRefusals() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let (stored, receipt) = try await Self.post(edge, Array(#"{"marker":"secret"}"#.utf8), token: try await edge.token())
            #expect(stored == 201)
            struct Receipt: Decodable { var sid: String }
            let secret = try JSONDecoder().decode(Receipt.self, from: Data(receipt.utf8)).sid
            let injections = [
                "/v1/reports?identity=%27%20OR%201%3D1%20--", "/v1/reports?edge=x%27%3B%20DROP%20TABLE%20preflight_reports%3B--",
                "/v1/reports?pageToken=1.%27%20OR%20%271%27%3D%271", "/v1/reports?from=1e400", "/v1/reports?pageSize=99999999999999999999",
                "/v1/reports?errorCode=-1", "/v1/reports/%27%20OR%20%271%27%3D%271", "/v1/reports/..%2F..%2Fetc%2Fpasswd",
                "/v1/aggregates?to=9999-99-99", "/v1/calls/%27%20OR%201%3D1--/events",
            ]
            for path in injections {
                let (status, text) = try await Self.get(edge, path)
                #expect([200, 400, 404].contains(status), "\(path): \(status)")
                if status == 200 {
                    // A filter that matched nothing literal: no report leaks through it.
                    #expect(!text.contains(secret), "\(path): \(text)")
                } else {
                    #expect(Self.code(text) != nil, "\(path): \(text)")
                }
            }
            // The table is still there, with its report.
            #expect(try await Self.get(edge, "/v1/reports").1.contains(secret))
            try await edge.expectAlive()
        }

        @Test func aFloodOfUploadsIsRateLimitedWithBoundedMemory() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let token = try await edge.token()
            let before = try edge.rssKiB()
            var statuses: [UInt: Int] = [:]
            var codes: [Int: Int] = [:]
            let body = Array((#"{"pad":""# + String(repeating: "x", count: 500_000) + #""}"#).utf8)
            let start = ContinuousClock.now
            // Eight at a time, 150 in all (every body is read before its refusal: 75 MB).
            try await withThrowingTaskGroup(of: (UInt, String).self) { group in
                func count(_ reply: (UInt, String)) {
                    statuses[reply.0, default: 0] += 1
                    if let code = Self.code(reply.1) { codes[code, default: 0] += 1 }
                }
                for index in 0..<150 {
                    if index >= 8, let reply = try await group.next() { count(reply) }
                    group.addTask { try await Self.post(edge, body, token: token) }
                }
                for try await reply in group { count(reply) }
            }
            let elapsed = Double(start.duration(to: .now).components.seconds) + 1
            // The identity's uploads: 30 a burst and 1 a second afterwards; its store quota: 16 MiB
            // an hour (about 33 of these). Never more than either.
            let allowed = min(30 + Int(elapsed) + 8, (16 << 20) / 500_000 + 1)
            print("upload flood: \(statuses) \(codes) in \(elapsed) s")
            #expect((statuses[201] ?? 0) >= 20 && (statuses[201] ?? 0) <= allowed, "\(statuses) in \(elapsed) s")
            #expect((statuses[201] ?? 0) + (statuses[429] ?? 0) == 150, "\(statuses)")
            #expect(Set(codes.keys).isSubset(of: [70706, 70708]), "\(codes)")
            let after = try edge.rssKiB()
            #expect(after - before < 128 * 1024, "RSS grew from \(before) to \(after) KiB")
            // The flood spent the identity's buckets, not the account's API bucket: the list is read at once.
            let (status, list) = try await Self.get(edge, "/v1/reports?pageSize=200")
            #expect(status == 200, "\(status): \(list.prefix(200))")
            let kept = list.components(separatedBy: "\"sid\"").count - 1
            #expect(kept == (statuses[201] ?? 0), "kept \(kept) of \(statuses[201] ?? 0)")
            try await edge.expectAlive()
        }
    }
}

import Foundation
import PreflightEdge
import PreflightTesting
import Testing

extension AttackTests {
    /// The HTTP routes of a real edge process: `/healthz` tells nothing but that it is up, and
    /// `/status` gives its counters only to an API key's sid and secret.
    @Suite(.serialized) struct HTTPRoutes {
        static func basic(_ user: String, _ password: String) -> String {
            "Authorization: Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        }

        @Test func statusNeedsTheKeysSecretAndHealthzTellsNothing() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let health = try await RawHTTP.get(port: edge.port, path: "/healthz")
            #expect(health.text.hasPrefix("HTTP/1.1 200"))
            #expect(health.text.hasSuffix(#"{"status":"ok"}"#), "\(health.text)")
            let key = LocalEdge.apiKeySID
            let refusals: [[String]] = [
                [],
                [Self.basic(key, "wrong-secret-of-the-right-length-0123456789")],
                [Self.basic(key, String(edge.edge.secret.dropLast()))],  // all but the last byte
                [Self.basic("SKunknown", edge.edge.secret)],
                ["Authorization: Basic !!!not-base64!!!"],
                ["Authorization: Bearer " + edge.edge.secret],
                [Self.basic(key, edge.edge.secret + String(repeating: "x", count: 8_000))],
            ]
            for headers in refusals {
                let reply = try await RawHTTP.get(port: edge.port, path: "/status", headers: headers)
                #expect(reply.text.hasPrefix("HTTP/1.1 401"), "\(headers.first?.prefix(40) ?? "none"): \(reply.text.prefix(80))")
                #expect(!reply.text.contains("packetsEchoed"))
            }
            let granted = try await RawHTTP.get(port: edge.port, path: "/status", headers: [Self.basic(key, edge.edge.secret)])
            #expect(granted.text.hasPrefix("HTTP/1.1 200"))
            #expect(granted.text.contains(#""droppedOverBudget":"#))
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }
    }
}

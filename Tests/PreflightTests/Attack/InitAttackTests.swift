import Foundation
import PreflightCore
import PreflightEdge
import Testing

extension AttackTests {
    /// `GET /v1/init` on a real edge process: a valid token gets where to connect and the ICE
    /// servers; anything else gets a 401 with the token's code, and no ICE server or credential.
    @Suite(.serialized) struct InitEndpoint {
        struct Answer: Decodable {
            var edge: String
            var websocketUrl: String
            var iceServers: [ICEServer]
        }

        struct Refusal: Decodable {
            var code: Int
            var message: String
        }

        /// The status line and the body after the headers.
        static func get(_ edge: AttackedEdge, _ headers: [String]) async throws -> (status: String, headers: String, body: String) {
            let reply = try await RawHTTP.get(port: edge.port, path: "/v1/init", headers: headers)
            let parts = reply.text.components(separatedBy: "\r\n\r\n")
            return (String(reply.text.split(separator: "\r\n").first ?? ""), parts.first ?? "", parts.dropFirst().joined(separator: "\r\n\r\n"))
        }

        @Test func aValidTokenGetsTheSignalingURLAndTheICEServers() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            // Any valid token: no application grant is needed to ask where to connect.
            let (status, _, body) = try await Self.get(edge, ["Authorization: Bearer \(try await edge.token())"])
            #expect(status.hasPrefix("HTTP/1.1 200"), "\(status)")
            let answer = try JSONDecoder().decode(Answer.self, from: Data(body.utf8))
            #expect(answer.websocketUrl == edge.edge.signalingURL)
            #expect(answer.edge == "local")
            #expect(answer.iceServers.first?.urls.first?.hasPrefix("stun:127.0.0.1:") == true, "\(answer.iceServers)")
            // The URL works: a client signs in there.
            let socket = try await edge.hello(try await edge.token())
            #expect(socket.welcomed)
            await socket.close()
        }

        /// Missing, wrong-scheme, forged, expired, unsigned, oversized and control-character tokens.
        @Test func everyOtherRequestIs401WithTheTokensCode() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let valid = try await edge.token()
            let now = Int(Date().timeIntervalSince1970)
            let cases: [(String, [String], Int)] = [
                ("no header", [], PreflightError.Code.invalidAccessToken.rawValue),
                ("Basic", ["Authorization: Basic " + Data("\(LocalEdge.apiKeySID):\(edge.edge.secret)".utf8).base64EncodedString()],
                 PreflightError.Code.invalidAccessToken.rawValue),
                ("forged signature", ["Authorization: Bearer " + String(valid.dropLast(2)) + "AA"],
                 PreflightError.Code.invalidAccessTokenSignature.rawValue),
                ("expired", ["Authorization: Bearer " + edge.handMade(payload: AttackedEdge.claims(exp: "\(now - 60)", iat: "\(now - 120)"))],
                 PreflightError.Code.accessTokenExpired.rawValue),
                ("alg none", ["Authorization: Bearer " + AttackedEdge.base64URL(Data(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "."
                    + AttackedEdge.base64URL(Data(AttackedEdge.claims().utf8)) + "."], PreflightError.Code.invalidAccessTokenHeader.rawValue),
                ("not a JWT", ["Authorization: Bearer ../../etc/passwd%00 <script>"], PreflightError.Code.invalidAccessToken.rawValue),
                ("9 KB", ["Authorization: Bearer " + String(repeating: "a", count: 9000)], PreflightError.Code.invalidAccessToken.rawValue),
            ]
            for (name, headers, code) in cases {
                let (status, head, body) = try await Self.get(edge, headers)
                #expect(status.hasPrefix("HTTP/1.1 401"), "\(name): \(status)")
                #expect(head.lowercased().contains("www-authenticate: bearer"), "\(name): \(head)")
                let refusal = try? JSONDecoder().decode(Refusal.self, from: Data(body.utf8))
                #expect(refusal?.code == code, "\(name): \(body.prefix(200))")
                #expect(!body.contains("stun:") && !body.contains("websocketUrl"), "\(name) leaked the answer")
            }
            // A header with an escape byte is not HTTP: the parser closes the connection before
            // any route sees it.
            let (status, _, body) = try await Self.get(edge, ["Authorization: Bearer \u{1B}[31mnot.a.token"])
            #expect(!status.hasPrefix("HTTP/1.1 200") && !body.contains("websocketUrl"), "\(status)")
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }
    }
}

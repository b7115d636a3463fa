import Foundation
import PreflightCore
import PreflightEdge
import PreflightTesting
import Testing

extension AttackTests {
    /// Validly signed tokens (the attacker holds a key, or replays one) with hostile claims and
    /// headers: each is refused with its own code, and the edge keeps serving.
    @Suite struct Tokens {
        enum HostileToken: String, CaseIterable, Sendable, CustomTestStringConvertible {
            /// Once trapped converting to whole seconds.
            case expiryOfMinus1e300
            case notBeforeOf1e300
            case issueTimeOfMinus1e300
            /// Within the 24 h lifetime cap, but issued in the future: not yet valid.
            case issuedTenYearsAheadWithOneDayLifetime
            /// RFC 7515 §4.1.11: a critical extension the verifier does not understand.
            case criticalHeaderExtension
            /// A key of one account minting for another.
            case subjectOfAnotherAccount

            var testDescription: String { rawValue }

            var expectedCode: PreflightError.Code {
                switch self {
                case .expiryOfMinus1e300: .accessTokenExpired
                case .notBeforeOf1e300, .issueTimeOfMinus1e300, .issuedTenYearsAheadWithOneDayLifetime: .accessTokenNotYetValid
                case .criticalHeaderExtension: .invalidAccessTokenHeader
                case .subjectOfAnotherAccount: .invalidAccessTokenIssuer
                }
            }

            func token(for edge: AttackedEdge) -> String {
                let tenYears = Int(Date().timeIntervalSince1970) + 10 * 365 * 86_400
                return switch self {
                case .expiryOfMinus1e300: edge.handMade(payload: AttackedEdge.claims(exp: "-1e300"))
                case .notBeforeOf1e300: edge.handMade(payload: AttackedEdge.claims(nbf: "1e300"))
                case .issueTimeOfMinus1e300: edge.handMade(payload: AttackedEdge.claims(iat: "-1e300"))
                case .issuedTenYearsAheadWithOneDayLifetime:
                    edge.handMade(payload: AttackedEdge.claims(exp: "\(tenYears + 86_400)", iat: "\(tenYears)"))
                case .criticalHeaderExtension:
                    edge.handMade(header: #"{"alg":"HS256","typ":"JWT","crit":["exp"]}"#, payload: AttackedEdge.claims())
                case .subjectOfAnotherAccount:
                    edge.handMade(payload: AttackedEdge.claims(sub: "AC" + String(repeating: "f", count: 32)))
                }
            }
        }

        @Test(arguments: HostileToken.allCases)
        func validlySignedHostileClaimsAreRefusedWithTheirCode(_ hostile: HostileToken) async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            // The control: the same hand signing with sane claims is welcomed, so each refusal below
            // is about the claim, not the signature.
            let control = try await edge.hello(edge.handMade(payload: AttackedEdge.claims(identity: "control")))
            #expect(control.welcomed, "a sane hand-made token was refused: \(control.summary)")
            await control.close()
            let socket = try await edge.hello(hostile.token(for: edge))
            #expect(socket.errorCode == hostile.expectedCode.rawValue, "\(socket.summary)")
            #expect(!socket.welcomed)
            // The session is over: the edge closes the connection itself.
            #expect(await socket.awaitEnd(upTo: .seconds(6)), "the edge left the refused connection open")
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }

        /// An `iss` with a newline and an escape sequence, as long as a hello frame allows (the
        /// 64 KiB frame limit comes first for longer ones): refused with 20103, and the edge's log
        /// and its answer hold neither the control bytes nor the bulk of the claim.
        @Test func issuerWithControlBytesCannotForgeOrFloodTheLog() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            var length = 49_000
            var hello = ""
            repeat {
                hello = SignalingMessage.hello(token: edge.handMade(payload: Self.claims(issuerLength: length)), client: nil).jsonText()
                length -= 250
            } while hello.utf8.count > SignalingMessage.maximumTextLength
            let socket = try await edge.connect()
            try await socket.send(text: hello)
            await socket.awaitVerdict()
            #expect(socket.errorCode == PreflightError.Code.invalidAccessTokenIssuer.rawValue, "\(socket.summary)")
            let answer = socket.frames.compactMap { if case .text(let text) = $0 { text } else { nil } }.first ?? ""
            #expect(answer.utf8.count < 1024, "the answer is \(answer.utf8.count) bytes")
            #expect(!answer.utf8.contains(0x1B))
            print("log injection: issuer with \(length + 250) bulk characters in a \(hello.utf8.count)-byte hello → \(answer.utf8.count)-byte answer")

            // Beyond the frame limit: refused before any parsing.
            let oversized = try await edge.connect()
            try await oversized.send(
                text: SignalingMessage.hello(token: edge.handMade(payload: Self.claims(issuerLength: 59_000)), client: nil).jsonText())
            await oversized.awaitVerdict()
            #expect(!oversized.welcomed)
            #expect(await oversized.awaitEnd(upTo: .seconds(6)), "the edge left an oversized hello's connection open")
            print("log injection: 59 000-character issuer → \(oversized.summary)")

            try await edge.expectAlive()
            // The edge writes its log as it goes: wait until the refusal reached the file.
            _ = await eventually { ((try? edge.logLines()) ?? []).contains { String(decoding: $0, as: UTF8.self).contains("signaling session refused") } }
            let lines = try edge.logLines()
            let refusal = lines.map { String(decoding: $0, as: UTF8.self) }.first { $0.contains("signaling session refused") }
            #expect(refusal != nil, "the refusal was not logged")
            print("log injection: the refusal as logged: \(refusal ?? "none")")
            #expect(!lines.contains { String(decoding: $0, as: UTF8.self).hasPrefix(Self.forgedLine) }, "a forged line reached the log")
            print("log injection: \(lines.count) log lines, longest \(lines.map(\.count).max() ?? 0) bytes")
            try edge.expectSaneLog()
        }

        /// Valid claims but an issuer of about `issuerLength` characters that starts with a newline,
        /// a forged log line and ANSI escape sequences (JSON-escaped, as a JSON encoder writes them),
        /// within the first characters an excerpt keeps, then bulk.
        static func claims(issuerLength: Int) -> String {
            let issuer = #"SK\n\#(forgedLine)\u001b[2J\u001b[31m"# + String(repeating: "A", count: issuerLength)
            return AttackedEdge.claims(iss: issuer)
        }

        static let forgedLine = "2026-01-01T00:00:00+0000 critical preflight.edge: forged"
    }
}

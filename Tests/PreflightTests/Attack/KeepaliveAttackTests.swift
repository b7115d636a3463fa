import Foundation
import PreflightCore
import Testing

extension AttackTests {
    /// The signaling WebSocket's keepalive against a real edge process pinging every second: a
    /// client that answers stays, one that has gone silent (a vanished phone, a dead NAT mapping)
    /// is let go within two intervals, whatever phase its session is in.
    @Suite struct Keepalive {
        static let arguments = ["--ping-interval", "1", "--signaling-timeout", "60"]

        @Test func aWelcomedClientThatStopsAnsweringIsLetGoWithinTwoIntervals() async throws {
            let edge = try await AttackedEdge.start(Self.arguments)
            defer { edge.stop() }
            let silent = try await edge.hello(try await edge.token(identity: "silent"))
            #expect(silent.welcomed, "\(silent.summary)")
            // Welcomed and waiting for its invite (60 s allowed): only the keepalive can end it.
            let ended = await silent.awaitEnd(upTo: .seconds(10))
            let after = silent.endedAt.map { $0 - silent.connectedAt }
            print("keepalive: a silent welcomed client was let go after \(after.map { $0.inSeconds.formatted(digits: 2) } ?? "never") s, "
                + "\(silent.pings) ping(s) unanswered")
            #expect(ended, "still open after 10 s: \(silent.summary)")
            #expect(silent.pings == 1, "one ping, then the close: \(silent.summary)")
            if let after { #expect(after > .seconds(1), "closed before its ping could go unanswered for an interval") }
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }

        @Test func aClientThatAnswersStays() async throws {
            let edge = try await AttackedEdge.start(Self.arguments)
            defer { edge.stop() }
            let client = try await RawWebSocket.connect(port: edge.port, answersPings: true)
            try await client.send(.hello(token: try await edge.token(identity: "answering"), client: "attack/1"))
            await client.awaitVerdict()
            #expect(client.welcomed, "\(client.summary)")
            // Three pings answered, long past the two intervals a silent client gets.
            await client.wait(upTo: .seconds(30)) { $0.pings >= 3 || $0.endedAt != nil }
            let elapsed = (ContinuousClock.now - client.connectedAt).inSeconds
            print("keepalive: an answering client got \(client.pings) ping(s) in \(elapsed.formatted(digits: 1)) s and stays")
            #expect(client.endedAt == nil, "closed although it answered every ping: \(client.summary)")
            // One ping a second: never more than the seconds that passed allow.
            #expect(client.pings >= 3 && Double(client.pings) <= elapsed + 1, "one ping a second: \(client.summary)")
            // The pongs brought nothing back: the welcome is the only frame.
            #expect(client.frames.count == 1, "\(client.summary)")
            await client.close()
            try await edge.expectAlive()
        }

        /// `--ping-interval 0`: no pings, so a silent client keeps its connection until the
        /// signaling timeout.
        @Test func noPingsWhenTurnedOff() async throws {
            let edge = try await AttackedEdge.start(["--ping-interval", "0", "--signaling-timeout", "3"])
            defer { edge.stop() }
            let silent = try await edge.hello(try await edge.token(identity: "silent"))
            #expect(silent.welcomed, "\(silent.summary)")
            // Nothing pings it, so nothing but the signaling timeout (3 s) ends it.
            #expect(await silent.awaitEnd(upTo: .seconds(30)))
            #expect(silent.pings == 0, "\(silent.summary)")
            #expect(silent.errorCode == PreflightError.Code.signalingTimeout.rawValue, "\(silent.summary)")
            if let ended = silent.endedAt { #expect(ended - silent.connectedAt > .seconds(2), "closed before its timeout: \(silent.summary)") }
        }
    }
}

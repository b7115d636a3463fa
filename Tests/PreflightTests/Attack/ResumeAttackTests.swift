import Foundation
import PreflightCore
import Testing

extension AttackTests {
    /// Attacks on session resumption: guessing, replaying and hijacking resume tokens, and parked
    /// sessions that hold slots.
    @Suite struct Resume {
        /// A session in a call, its TCP connection dropped without a close: only its own token
        /// resumes it, once; the call goes on and ends normally on the new connection.
        @Test func aLostSessionResumesOnceWithItsOwnToken() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let original = try await edge.hello(try await edge.token(identity: "caller"))
            guard case .welcome(let welcome) = original.messages.first, let token = welcome.resumeToken else {
                Issue.record("no welcome with a resume token: \(original.summary)")
                return
            }
            #expect(token.count == 32)
            try await Self.call(on: original)
            let callSid = original.messages.compactMap { if case .answer(let answer) = $0 { answer.callSid } else { nil } }.first
            #expect(callSid != nil, "\(original.summary)")

            // While the session is attached, a wrong token takes nothing over.
            let hijack = try await Self.resume(edge, sessionId: welcome.sessionId, token: String(repeating: "0", count: 32))
            #expect(hijack.errorCode == PreflightError.Code.sessionResumeRefused.rawValue, "\(hijack.summary)")

            await original.close()  // the connection is lost: no close frame, no hangup
            try await Task.sleep(for: .milliseconds(200))

            // Guesses: a wrong token, an unknown session, a token of the wrong length. One answer for all.
            var refusals: [String] = []
            for (id, guess) in [
                (welcome.sessionId, String(repeating: "0", count: 32)), ("SS" + String(repeating: "f", count: 32), token),
                (welcome.sessionId, String(token.prefix(31))), (welcome.sessionId, token + "0"),
            ] {
                let attempt = try await Self.resume(edge, sessionId: id, token: guess)
                #expect(attempt.errorCode == PreflightError.Code.sessionResumeRefused.rawValue, "\(attempt.summary)")
                #expect(await attempt.awaitEnd(upTo: .seconds(5)), "a refused resume leaves the connection open")
                refusals += attempt.messages.compactMap { if case .error(let info) = $0 { info.message } else { nil } }
            }
            #expect(Set(refusals).count == 1, "refusals differ, telling which guess was closer: \(refusals)")

            // The real client, after the guesses: resumed into its call.
            let resumed = try await Self.resume(edge, sessionId: welcome.sessionId, token: token)
            let answer = resumed.messages.first
            guard case .resumed(let body) = answer else {
                Issue.record("no resumed: \(resumed.summary)")
                return
            }
            #expect(body.sessionId == welcome.sessionId)
            #expect(body.callSid == callSid)
            let nextToken = try #require(body.resumeToken)
            #expect(nextToken != token && nextToken.count == 32)

            // Replayed while the resumed connection lives: refused.
            let replay = try await Self.resume(edge, sessionId: welcome.sessionId, token: token)
            #expect(replay.errorCode == PreflightError.Code.sessionResumeRefused.rawValue, "\(replay.summary)")

            // Lost again: the used token opens nothing, the new one resumes.
            await resumed.close()
            try await Task.sleep(for: .milliseconds(200))
            let used = try await Self.resume(edge, sessionId: welcome.sessionId, token: token)
            #expect(used.errorCode == PreflightError.Code.sessionResumeRefused.rawValue, "a used token resumed: \(used.summary)")
            let again = try await Self.resume(edge, sessionId: welcome.sessionId, token: nextToken)
            #expect(again.messages.contains { if case .resumed = $0 { true } else { false } }, "\(again.summary)")

            // The call ends normally on the newest connection, which the edge then closes.
            try await again.send(.hangup(.init(callSid: callSid ?? "", reason: "done")))
            #expect(await again.awaitEnd(upTo: .seconds(5)), "the resumed session did not end on hangup")
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }

        /// A client that left a network drops its connection there, and the edge may never see
        /// it end: a new connection with the session's token takes the attached session over
        /// at once. What the old connection sends afterwards goes nowhere (its hangup ends
        /// nothing), and the token it used opens nothing more.
        @Test func anAttachedSessionIsTakenOverByItsOwnToken() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let (original, welcome, token) = try await Self.inCall(edge, identity: "mover")
            let callSid = try #require(original.messages.compactMap { if case .answer(let answer) = $0 { answer.callSid } else { nil } }.first)

            let moved = try await Self.resume(edge, sessionId: welcome.sessionId, token: token)
            guard case .resumed(let body) = moved.messages.first else {
                Issue.record("the attached session was not taken over: \(moved.summary)")
                return
            }
            #expect(body.sessionId == welcome.sessionId && body.callSid == callSid)
            let nextToken = try #require(body.resumeToken)
            #expect(nextToken != token)
            // The old connection's hangup reaches nothing: the call lives on the new connection.
            try await original.send(.hangup(.init(callSid: callSid, reason: "from the old connection")))
            let replay = try await Self.resume(edge, sessionId: welcome.sessionId, token: token)
            #expect(replay.errorCode == PreflightError.Code.sessionResumeRefused.rawValue, "\(replay.summary)")
            // Taken over again with the new token: still in the call, so the old hangup ended nothing.
            let again = try await Self.resume(edge, sessionId: welcome.sessionId, token: nextToken)
            guard case .resumed(let last) = again.messages.first else {
                Issue.record("the session ended: \(again.summary)")
                return
            }
            #expect(last.callSid == callSid)
            try await again.send(.hangup(.init(callSid: callSid, reason: "done")))
            #expect(await again.awaitEnd(upTo: .seconds(5)), "the session did not end on hangup")
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }

        /// A connection reset in a call (an RST: a client whose network came back resets the
        /// connection it dropped) is a lost connection, not a protocol error: the session parks
        /// and its token resumes it.
        @Test func aResetConnectionIsParkedLikeALostOne() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let (original, welcome, token) = try await Self.inCall(edge, identity: "reset")
            await original.reset()
            // Parked (or, had the reset not arrived yet, taken over): resumed either way.
            let resumed = try await Self.resume(edge, sessionId: welcome.sessionId, token: token)
            #expect(resumed.messages.contains { if case .resumed = $0 { true } else { false } }, "\(resumed.summary)")
            try edge.expectSaneLog()
        }

        /// A parked session holds its slot for the resume window and frees it after; `resume` is
        /// a first message only. (A session lost before its call is not parked: nothing to resume.)
        @Test func aParkedSessionHoldsItsSlotForTheWindowOnly() async throws {
            let edge = try await AttackedEdge.start(["--max-sessions", "1", "--session-resume-window", "1"])
            defer { edge.stop() }
            let first = try await edge.hello(try await edge.token(identity: "first"))
            guard case .welcome(let welcome) = first.messages.first, let token = welcome.resumeToken else {
                Issue.record("no welcome with a resume token: \(first.summary)")
                return
            }
            let second = try await edge.hello(try await edge.token(identity: "first"))
            #expect(second.errorCode == PreflightError.Code.edgeAtCapacity.rawValue, "one session only: \(second.summary)")
            try await Self.call(on: first)
            await first.close()
            try await Task.sleep(for: .milliseconds(200))
            let during = try await edge.hello(try await edge.token(identity: "second"))
            #expect(during.errorCode == PreflightError.Code.edgeAtCapacity.rawValue, "the parked session's slot: \(during.summary)")
            // The window (1 s) is over when the edge frees the parked session's slot.
            let sessions = try await edge.awaitStatus(upTo: .seconds(30)) { $0["sessions"] == 0 }["sessions"]
            #expect(sessions == 0, "the parked session outlived its window: \(String(describing: sessions))")
            let late = try await Self.resume(edge, sessionId: welcome.sessionId, token: token)
            #expect(late.errorCode == PreflightError.Code.sessionResumeRefused.rawValue, "resumed after the window: \(late.summary)")
            let after = try await edge.hello(try await edge.token(identity: "second"))
            #expect(after.welcomed, "the slot was not freed after the window: \(after.summary)")
            // A resume after hello is out of order: the session ends with 70002.
            try await after.send(.resume(.init(sessionId: welcome.sessionId, resumeToken: token)))
            await after.wait(upTo: .seconds(5)) { $0.errorCode != nil }
            #expect(after.errorCode == PreflightError.Code.malformed.rawValue, "resume after hello: \(after.summary)")
            try edge.expectSaneLog()
        }

        /// A client that breaks the WebSocket protocol in a call (text that is not UTF-8) gets 1007
        /// and its session ends: it is not parked for a resume.
        @Test func aProtocolErrorInACallEndsTheSession() async throws {
            let edge = try await AttackedEdge.start(["--max-sessions", "1"])
            defer { edge.stop() }
            let client = try await edge.hello(try await edge.token(identity: "breaker"))
            guard case .welcome(let welcome) = client.messages.first, let token = welcome.resumeToken else {
                Issue.record("no welcome with a resume token: \(client.summary)")
                return
            }
            try await Self.call(on: client)
            try await client.send(raw: RawWebSocket.frame(opcode: RawWebSocket.Opcode.text, payload: [0xC3, 0x28]))
            #expect(await client.awaitEnd(upTo: .seconds(5)), "the connection stayed open")
            #expect(client.closeCode == .some(1007), "\(client.summary)")
            let resume = try await Self.resume(edge, sessionId: welcome.sessionId, token: token)
            #expect(resume.errorCode == PreflightError.Code.sessionResumeRefused.rawValue, "\(resume.summary)")
            // Its slot is free at once (the only one).
            let next = try await edge.hello(try await edge.token(identity: "next"))
            #expect(next.welcomed, "\(next.summary)")
            try edge.expectSaneLog()
        }

        /// A connection signed in as `identity` and in a call, its welcome and resume token.
        static func inCall(_ edge: AttackedEdge, identity: String) async throws -> (RawWebSocket, SignalingMessage.Welcome, String) {
            let socket = try await edge.hello(try await edge.token(identity: identity))
            guard case .welcome(let welcome) = socket.messages.first, let token = welcome.resumeToken else {
                throw PreflightError(code: .malformed, message: "no welcome with a resume token: \(socket.summary)")
            }
            try await call(on: socket)
            return (socket, welcome, token)
        }

        /// Places a call on a welcomed connection and waits for its answer: only a session in a call
        /// is resumed.
        static func call(on socket: RawWebSocket) async throws {
            let (ufrag, pwd) = ICEParameters.randomCredentials()
            let candidate = ICECandidate(foundation: "1", priority: 2_130_706_431, address: "127.0.0.1", port: 9, type: .host)
            try await socket.send(.invite(.init(ice: ICEParameters(ufrag: ufrag, pwd: pwd, candidates: [candidate]), codecs: ["PCMU"])))
            await socket.wait(upTo: .seconds(5)) { socket in socket.messages.contains { if case .answer = $0 { true } else { false } } }
        }

        /// Sends `resume` on a fresh connection and waits for the edge's verdict.
        static func resume(_ edge: AttackedEdge, sessionId: String, token: String) async throws -> RawWebSocket {
            let socket = try await edge.connect()
            try await socket.send(.resume(.init(sessionId: sessionId, resumeToken: token)))
            await socket.wait(upTo: .seconds(5)) { socket in
                socket.messages.contains { if case .resumed = $0 { true } else if case .error = $0 { true } else { false } }
                    || socket.endedAt != nil
            }
            return socket
        }
    }
}

import Foundation
import NIOCore
import PreflightCore
import PreflightTesting
import PreflightEdge
import PreflightNIO
import Testing

extension AttackTests {
    /// The rates and shares of calls on a real edge process (docs/security.md, "Signaling"):
    /// ringing a callee's devices as fast as a caller can, flooding the Insights call log with
    /// calls, flooding Insights events, over-long call message ids. Each prints its figures;
    /// `PREFLIGHT_ATTACK_EXECUTABLE` points them at another build for figures from before.
    @Suite(.serialized) struct CallLimits {
        /// A session of `token` that the edge welcomed, retried while the identity's last sessions
        /// are still being released (70104).
        static func session(_ edge: AttackedEdge, _ token: String) async throws -> RawWebSocket {
            var last = "nothing"
            for _ in 0..<500 {
                do {
                    let socket = try await edge.hello(token)
                    if socket.welcomed { return socket }
                    last = socket.summary
                    await socket.close()
                } catch {
                    last = "\(error)"
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            throw RawWebSocketError(message: "no welcome within 500 attempts, the last: \(last)")
        }

        static func ringings(_ socket: RawWebSocket) -> [String] {
            socket.messages.compactMap { if case .ringing(let callSid) = $0 { callSid } else { nil } }
        }

        static func answerSid(_ socket: RawWebSocket) -> String? {
            socket.messages.lazy.compactMap { if case .answer(let answer) = $0 { answer.callSid } else { nil } }.first
        }

        static func perSecond(_ count: Int, _ elapsed: Duration) -> String {
            (Double(count) / elapsed.inSeconds).formatted(digits: 1)
        }

        /// `GET /v1/calls/{sid}/events`: the events kept and the `dropped` count, `nil` for a 404.
        static func events(_ edge: AttackedEdge, _ callSid: String) async throws -> (kept: Int, dropped: Int)? {
            struct Body: Decodable {
                struct Event: Decodable { var party: String }
                var events: [Event]
                var dropped: Int?
            }
            let basic = Data("\(edge.edge.apiKeySID):\(edge.edge.secret)".utf8).base64EncodedString()
            let reply = try await EdgeHTTPClient.send(
                edge: edge.edge.signalingURL, method: "GET", path: "/v1/calls/\(callSid)/events", authorization: "Basic \(basic)",
                timeout: .seconds(20), maximumLength: 64 << 20, failure: .malformed)
            guard reply.status == 200 else { return nil }
            let body = try JSONDecoder().decode(Body.self, from: Data(reply.body))
            return (body.events.count, body.dropped ?? 0)
        }

        /// The events the store keeps of `callSid` once it keeps at least one, or after 30 s.
        static func eventsKept(_ edge: AttackedEdge, _ callSid: String) async throws -> Int {
            _ = try await eventually(every: .milliseconds(50)) { (try await events(edge, callSid)?.kept ?? 0) >= 1 }
            return try await events(edge, callSid)?.kept ?? 0
        }

        /// A test call (echo) of `token`'s identity, hung up at once: its sid. A connection the
        /// loaded edge dropped is tried again, as a flooding client would.
        static func echoCall(_ edge: AttackedEdge, _ token: String) async throws -> String {
            var lastError: (any Error)?
            for _ in 0..<5 {
                do {
                    return try await echoCallOnce(edge, token)
                } catch {
                    lastError = error
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            throw RawWebSocketError(message: "no echo call in 5 attempts, the last: \(lastError.map { "\($0)" } ?? "none")")
        }

        private static func echoCallOnce(_ edge: AttackedEdge, _ token: String) async throws -> String {
            let socket = try await session(edge, token)
            try await socket.send(.invite(.init(ice: Calls.offer(), codecs: ["PCMU"])))
            await socket.wait(upTo: .seconds(20)) { answerSid($0) != nil || $0.errorCode != nil || $0.endedAt != nil }
            guard let callSid = answerSid(socket) else { throw RawWebSocketError(message: "no answer: \(socket.summary)") }
            // A hangup ends a test call's session at once (a lost connection would park it).
            try await socket.send(.hangup(.init(callSid: callSid)))
            await socket.close()
            return callSid
        }

        // MARK: Ringing

        /// One caller rings a callee's three devices as fast as it can (invite, `ringing`, hang
        /// up, invite again; a new session after each refusal), then many callers one invite
        /// each: every device rings at the caller's rate, then at the callee's.
        @Test func ringingADevicesIsRateLimited() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            var devices: [RawWebSocket] = []
            for _ in 0..<3 { devices.append(try await Calls.signIn(edge, "victim", register: true)) }
            let invite = SignalingMessage.invite(.init(ice: Calls.offer(), codecs: ["PCMU"], params: ["To": "client:victim"]))

            // One caller.
            let token = try await edge.edge.callToken(identity: "ringer")
            var caller = try await Self.session(edge, token)
            var (invites, rang, refused, sessions) = (0, 0, 0, 1)
            let start = ContinuousClock.now
            while ContinuousClock.now - start < .seconds(8) {
                let before = Self.ringings(caller).count
                try await caller.send(invite)
                invites += 1
                await caller.wait(upTo: .seconds(10)) { Self.ringings($0).count > before || $0.errorCode != nil || $0.endedAt != nil }
                if Self.ringings(caller).count > before, let callSid = Self.ringings(caller).last {
                    rang += 1
                    try await caller.send(.hangup(.init(callSid: callSid)))
                } else {
                    if caller.errorCode == PreflightError.Code.inviteRateLimited.rawValue { refused += 1 }
                    await caller.close()
                    caller = try await Self.session(edge, token)
                    sessions += 1
                }
            }
            let elapsed = ContinuousClock.now - start
            await caller.close()
            for device in devices { await device.wait(upTo: .seconds(10)) { Calls.incoming($0).count >= rang } }
            let rings = devices.map { Calls.incoming($0).count }
            print(
                "one caller, \(elapsed.inSeconds.formatted(digits: 1)) s: \(invites) invites in \(sessions) sessions, \(rang) rang, \(refused) refused with 70108; rings per device \(rings) = \(Self.perSecond(rings.max() ?? 0, elapsed))/s")
            #expect(rings.allSatisfy { $0 == rang })
            #expect(Double(rang) <= 10 + elapsed.inSeconds + 1, "the caller's burst of 10 and 1 a second")
            #expect(refused > 0)

            // Many callers, one invite each: the callee's bucket binds.
            let ringsBefore = rings.max() ?? 0
            var (callers, refusedCallee) = (0, 0)
            let manyStart = ContinuousClock.now
            while ContinuousClock.now - manyStart < .seconds(6) {
                let socket = try await Self.session(edge, try await edge.edge.callToken(identity: "ringer-\(callers)"))
                callers += 1
                try await socket.send(invite)
                await socket.wait(upTo: .seconds(10)) { !Self.ringings($0).isEmpty || $0.errorCode != nil || $0.endedAt != nil }
                if let callSid = Self.ringings(socket).first {
                    try await socket.send(.hangup(.init(callSid: callSid)))
                } else if socket.errorCode == PreflightError.Code.inviteRateLimited.rawValue {
                    refusedCallee += 1
                }
                await socket.close()
            }
            let manyElapsed = ContinuousClock.now - manyStart
            try await Task.sleep(for: .milliseconds(500))  // lets the last incoming arrive; counted either way
            let manyRings = (devices.map { Calls.incoming($0).count }.max() ?? 0) - ringsBefore
            print(
                "\(callers) callers, \(manyElapsed.inSeconds.formatted(digits: 1)) s: \(manyRings) rings per device = \(Self.perSecond(manyRings, manyElapsed))/s, \(refusedCallee) refused with 70108")
            #expect(Double(manyRings) <= 10 + manyElapsed.inSeconds + 1, "the callee's burst of 10 and 1 a second")
            #expect(refusedCallee > 0)
            for device in devices { #expect(device.endedAt == nil) }
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }

        // MARK: The Insights call log

        /// A real call, then `spamCalls` echo calls of eight other identities of the account (as
        /// fast as eight clients go), then the real call's party posts feedback.
        /// - Returns: the flood's figures, whether the feedback was taken and whether the flood's
        ///   first call was forgotten.
        static func floodTheLog(_ edge: AttackedEdge, spamCalls: Int) async throws -> (
            elapsed: Duration, feedbackTaken: Bool, firstSpamForgotten: Bool
        ) {
            let alice = try await edge.token(identity: "alice")
            let realSid = try await echoCall(edge, alice)
            let spamTokens = try await (0..<8).asyncMap { try await edge.token(identity: "spammer-\($0)") }
            let start = ContinuousClock.now
            let firstSpam = try await withThrowingTaskGroup(of: String?.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        var first: String?
                        for index in stride(from: worker, to: spamCalls, by: 8) {
                            let callSid = try await echoCall(edge, spamTokens[worker])
                            if index == 0 { first = callSid }
                        }
                        return first
                    }
                }
                var first: String?
                for try await sid in group where sid != nil { first = sid }
                return first
            }
            let elapsed = ContinuousClock.now - start

            let feedback = [InsightsEvent(.feedback, "received", timestamp: 1, payload: ["score": "5"])]
            func post(_ token: String, _ callSid: String) async throws -> Bool {
                let socket = try await session(edge, token)
                try await socket.send(.insights(.init(callSid: callSid, events: feedback)))
                // A message answered after it: the session went on, the events were taken. An edge
                // that refused the events may have closed the session before this write: refused.
                let probeSent = (try? await socket.send(
                    .message(.init(callSid: "CAnone", id: "probe", message: CallMessage(content: "{}"))))) != nil
                await socket.wait(upTo: .seconds(10)) { socket in
                    socket.errorCode != nil || socket.endedAt != nil
                        || socket.messages.contains { if case .messageStatus = $0 { true } else { false } }
                }
                let taken = probeSent && socket.errorCode == nil
                    && socket.messages.contains { if case .messageStatus = $0 { true } else { false } }
                await socket.close()
                return taken
            }
            let taken = try await post(alice, realSid)
            let firstForgotten = try await !post(spamTokens[0], try #require(firstSpam))
            if taken {
                // The store has it too (written off the signaling path: waited for).
                #expect(try await eventsKept(edge, realSid) == 1)
            }
            print(
                "\(spamCalls) spam calls in \(elapsed.inSeconds.formatted(digits: 1)) s (\(perSecond(spamCalls, elapsed))/s): the real call's feedback \(taken ? "taken" : "refused"), the flood's first call \(firstForgotten ? "forgotten" : "kept")")
            return (elapsed, taken, firstForgotten)
        }

        /// Another identity's flood of calls pushes the real call out of a small log no more: the
        /// flood forgets its own oldest calls (the log holds 300 here).
        @Test func aFloodOfCallsKeepsAnotherIdentitysCall() async throws {
            let edge = try await AttackedEdge.start(["--max-logged-calls", "300"])
            defer { edge.stop() }
            let flood = try await Self.floodTheLog(edge, spamCalls: 600)
            #expect(flood.feedbackTaken)
            #expect(flood.firstSpamForgotten, "the flood passed the log's size")
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }

        /// The same at the edge's own log size, with `PREFLIGHT_ATTACK_SPAM_CALLS` calls (10,100
        /// passes the 10,000 calls an edge kept before the log was shared by account): minutes.
        @Test(.enabled(if: ProcessInfo.processInfo.environment["PREFLIGHT_ATTACK_SPAM_CALLS"] != nil))
        func aFloodOfCallsAtTheDefaultLogSize() async throws {
            let spamCalls = Int(ProcessInfo.processInfo.environment["PREFLIGHT_ATTACK_SPAM_CALLS"] ?? "") ?? 10_100
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let flood = try await Self.floodTheLog(edge, spamCalls: spamCalls)
            #expect(flood.feedbackTaken)
            try await edge.expectAlive()
        }
    }
}

extension Sequence {
    /// The elements mapped one after another by an async `transform`.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}

import Foundation
import NIOCore
import PreflightCore
import PreflightEdge
import Testing

extension AttackTests {
    /// Attacks on calls between clients: accepting, rejecting and hanging up calls that are not
    /// one's own, ringing a victim without end, posting Insights to others' calls, and call
    /// messages beyond their limits.
    @Suite struct Calls {
        /// A raw client signed in with a call token (outgoing: the dial application).
        static func signIn(_ edge: AttackedEdge, _ identity: String, register: Bool = false) async throws -> RawWebSocket {
            let socket = try await edge.hello(try await edge.edge.callToken(identity: identity))
            try #require(socket.welcomed, "no welcome: \(socket.summary)")
            if register {
                try await socket.send(.register)
                await socket.wait(upTo: .seconds(5)) { $0.messages.contains { if case .registered = $0 { true } else { false } } }
            }
            return socket
        }

        /// Alice calls bob (registered) and bob accepts: the call connected, its sid.
        static func connectedCall(on edge: AttackedEdge) async throws -> (alice: RawWebSocket, bob: RawWebSocket, callSid: String) {
            let bob = try await signIn(edge, "bob", register: true)
            let alice = try await signIn(edge, "alice")
            try await alice.send(.invite(.init(ice: offer(), codecs: ["PCMU"], params: ["To": "client:bob"])))
            #expect(await bob.wait(upTo: .seconds(5)) { !incoming($0).isEmpty })
            let callSid = try #require(incoming(bob).first?.callSid)
            try await bob.send(.accept(.init(callSid: callSid, ice: offer(), codecs: ["PCMU"])))
            #expect(await bob.wait(upTo: .seconds(5)) { $0.messages.contains { if case .answer = $0 { true } else { false } } })
            return (alice, bob, callSid)
        }

        static func offer() -> ICEParameters {
            let (ufrag, pwd) = ICEParameters.randomCredentials()
            let candidate = ICECandidate(foundation: "1", priority: 2_130_706_431, address: "127.0.0.1", port: 9, type: .host)
            return ICEParameters(ufrag: ufrag, pwd: pwd, candidates: [candidate])
        }

        static func incoming(_ socket: RawWebSocket) -> [SignalingMessage.Incoming] {
            socket.messages.compactMap { if case .incoming(let incoming) = $0 { incoming } else { nil } }
        }

        static func hangups(_ socket: RawWebSocket) -> [SignalingMessage.Hangup] {
            socket.messages.compactMap { if case .hangup(let hangup) = $0 { hangup } else { nil } }
        }

        /// Alice calls bob; mallory (registered too, another identity) knows the call's sid.
        @Test func aCallCanOnlyBeAnsweredWhereItRings() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let bob = try await Self.signIn(edge, "bob", register: true)
            let mallory = try await Self.signIn(edge, "mallory", register: true)
            let alice = try await Self.signIn(edge, "alice")
            try await alice.send(.invite(.init(ice: Self.offer(), codecs: ["PCMU"], params: ["To": "client:bob"])))
            #expect(await bob.wait(upTo: .seconds(5)) { !Self.incoming($0).isEmpty }, "\(bob.summary)")
            let callSid = try #require(Self.incoming(bob).first?.callSid)
            #expect(Self.incoming(mallory).isEmpty)

            // Accepting, rejecting, hanging up someone else's call: refused or ignored, session kept.
            try await mallory.send(.accept(.init(callSid: callSid, ice: Self.offer(), codecs: ["PCMU"])))
            try await mallory.send(.reject(callSid: callSid))
            try await mallory.send(.hangup(.init(callSid: callSid)))
            #expect(await mallory.wait(upTo: .seconds(5)) { !Self.hangups($0).isEmpty })
            #expect(Self.hangups(mallory).first?.code == PreflightError.Code.generalCallError.rawValue)
            #expect(!mallory.messages.contains { if case .answer = $0 { true } else { false } }, "\(mallory.summary)")
            #expect(mallory.endedAt == nil)
            // The call still rings for bob, who answers it.
            try await bob.send(.accept(.init(callSid: callSid, ice: Self.offer(), codecs: ["PCMU"])))
            #expect(await bob.wait(upTo: .seconds(5)) { $0.messages.contains { if case .answer = $0 { true } else { false } } })
            #expect(!alice.messages.contains { if case .hangup = $0 { true } else { false } }, "\(alice.summary)")
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }

        /// Callers cannot pile up rings on one device: it rings for at most four calls at once,
        /// the others find it busy (31486).
        @Test func aDeviceRingsForAtMostFourCalls() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let victim = try await Self.signIn(edge, "victim", register: true)
            var callers: [RawWebSocket] = []
            for index in 0..<6 {
                let caller = try await Self.signIn(edge, "caller-\(index)")
                try await caller.send(.invite(.init(ice: Self.offer(), codecs: ["PCMU"], params: ["To": "client:victim"])))
                await caller.wait(upTo: .seconds(5)) { $0.messages.contains { if case .ringing = $0 { true } else { false } } || $0.errorCode != nil }
                callers.append(caller)
            }
            #expect(Self.incoming(victim).count == 4)
            #expect(callers.filter { $0.errorCode == PreflightError.Code.calleeBusy.rawValue }.count == 2)
            try await edge.expectAlive()
        }

        /// Registering needs the token's incoming grant.
        @Test func registeringWithoutTheIncomingGrantIsRefused() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let socket = try await edge.hello(try await edge.edge.callToken(identity: "eve", incomingAllow: false))
            try await socket.send(.register)
            #expect(await socket.awaitEnd(upTo: .seconds(5)))
            #expect(socket.errorCode == PreflightError.Code.invalidAccessTokenGrants.rawValue, "\(socket.summary)")
        }

        /// Insights only go to one's own calls, within their limits.
        @Test func insightsForSomeoneElsesCallAreRefused() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let victim = try await AttackCall.open(on: edge, identity: "victim")
            let callSid = try #require(victim.signaling.messages.lazy.compactMap { if case .answer(let a) = $0 { a.callSid } else { nil } }.first)
            let mallory = try await Self.signIn(edge, "mallory")
            try await mallory.send(.insights(.init(callSid: callSid, events: [InsightsEvent(.connection, "forged", timestamp: 1)])))
            #expect(await mallory.awaitEnd(upTo: .seconds(5)))
            #expect(mallory.errorCode == PreflightError.Code.malformed.rawValue, "\(mallory.summary)")
            // Too many events in one message, or a field too long: refused as well (a party of
            // its own call each time; a refusal ends the session).
            for events in [
                Array(repeating: InsightsEvent(.connection, "x", timestamp: 1), count: 101),
                [InsightsEvent(.connection, String(repeating: "n", count: 65), timestamp: 1)],
                [InsightsEvent(.connection, "x", timestamp: 1, payload: ["k": String(repeating: "v", count: 513)])],
            ] {
                let call = try await AttackCall.open(on: edge, identity: "noisy")
                let sid = try #require(call.signaling.messages.lazy.compactMap { if case .answer(let a) = $0 { a.callSid } else { nil } }.first)
                try await call.signaling.send(.insights(.init(callSid: sid, events: events)))
                #expect(await call.signaling.awaitEnd(upTo: .seconds(5)))
                #expect(call.signaling.errorCode == PreflightError.Code.malformed.rawValue, "\(call.signaling.summary)")
            }
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }

        /// Call messages at the edge: no more than 10 a minute, no more than 10 KB, only the
        /// user-defined type, only in one's own connected call; each refusal answered, the session
        /// kept. All 34 arrive in one write, far more than the session's inbound buffer (8): the
        /// edge reads them as its session loop takes them, and ends nothing.
        @Test func callMessagesAreLimitedAtTheEdge() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let (alice, bob, callSid) = try await Self.connectedCall(on: edge)
            var burst = ByteBuffer()
            var order: [String] = []
            func add(_ id: String, _ message: CallMessage, sid: String? = nil) {
                let text = SignalingMessage.message(.init(callSid: sid ?? callSid, id: id, message: message)).jsonText()
                burst.writeImmutableBuffer(RawWebSocket.frame(opcode: RawWebSocket.Opcode.text, payload: Array(text.utf8)))
                order.append(id)
            }
            add("big", CallMessage(content: String(repeating: "x", count: 10 * 1024 + 1)))
            add("type", CallMessage(content: "{}", messageType: "system"))
            add("other", CallMessage(content: "{}"), sid: "CA" + String(repeating: "1", count: 32))
            for index in 0..<31 { add("m\(index)", CallMessage(content: "{}")) }
            try await alice.send(raw: burst)
            let statuses = { alice.messages.compactMap { if case .messageStatus(let status) = $0 { status } else { nil } } }
            #expect(await alice.wait(upTo: .seconds(10)) { _ in statuses().count == order.count }, "\(alice.summary)")
            // Answered in the order sent: nothing was dropped or reordered while reading waited.
            #expect(statuses().map(\.id) == order)
            let codes = Dictionary(statuses().map { ($0.id, $0.code) }, uniquingKeysWith: { first, _ in first })
            #expect(codes["big"] == .some(PreflightError.Code.callMessageTooLarge.rawValue))
            #expect(codes["type"] == .some(PreflightError.Code.callMessageTypeInvalid.rawValue))
            #expect(codes["other"] == .some(PreflightError.Code.callMessageUnexpectedState.rawValue))
            #expect((0..<10).allSatisfy { codes["m\($0)"] == .some(nil) })
            #expect((10..<31).allSatisfy { codes["m\($0)"] == .some(PreflightError.Code.callMessageRateLimited.rawValue) })
            // The ten accepted reach bob (after alice's statuses, on another connection), and no more.
            let delivered = { bob.messages.filter { if case .message = $0 { true } else { false } } }
            #expect(await bob.wait(upTo: .seconds(10)) { _ in delivered().count >= 10 }, "\(bob.summary)")
            #expect(delivered().count == 10)
            #expect(alice.endedAt == nil)
            try await edge.expectAlive()
        }

        /// 3,000 call messages in one burst (about 550 KB): the edge reads them at its session's
        /// pace, answers every one in order, keeps the session and its memory.
        @Test func aFloodOfMessagesIsReadAtTheSessionsPace() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let (alice, bob, callSid) = try await Self.connectedCall(on: edge)
            let before = try edge.rssKiB()
            var burst = ByteBuffer()
            let count = 3_000
            for index in 0..<count {
                let text = SignalingMessage.message(.init(callSid: callSid, id: "f\(index)", message: CallMessage(content: "{}"))).jsonText()
                burst.writeImmutableBuffer(RawWebSocket.frame(opcode: RawWebSocket.Opcode.text, payload: Array(text.utf8)))
            }
            let start = ContinuousClock.now
            try await alice.send(raw: burst)
            let statuses = { alice.messages.compactMap { if case .messageStatus(let status) = $0 { status } else { nil } } }
            #expect(await alice.wait(upTo: .seconds(30)) { _ in statuses().count == count }, "\(alice.summary)")
            print("flood of \(count) call messages (\(burst.readableBytes) bytes): answered in \((ContinuousClock.now - start).inSeconds.formatted(digits: 2)) s")
            #expect(statuses().map(\.id) == (0..<count).map { "f\($0)" })
            #expect(statuses().filter { $0.code == nil }.count == 10, "only the minute's 10 go through")
            #expect(await bob.wait(upTo: .seconds(5)) { $0.messages.filter { if case .message = $0 { true } else { false } }.count == 10 })
            #expect(alice.endedAt == nil)
            #expect(try edge.rssKiB() - before < 30 << 10)
            try await edge.expectAlive()
        }
    }
}

import Foundation
import NIOCore
import PreflightCore
import PreflightEdge
import PreflightTesting
import Testing

extension AttackTests {
    /// `candidates` on a real edge process (docs/security.md, "Signaling"): a client names a
    /// third party's address as its new network's candidate, sends too many, bad ones, or another
    /// call's. The edge records what is valid and sends nothing to any of it (only a check that
    /// authenticates from an address moves a path); what is not valid is refused with 70002 and
    /// the session goes on.
    @Suite(.serialized) struct Candidates {
        static func candidate(_ address: String, port: UInt16, foundation: String = "9") -> ICECandidate {
            ICECandidate(foundation: foundation, priority: 2_130_706_431, address: address, port: port, type: .host)
        }

        static func errors(_ socket: RawWebSocket) -> [SignalingMessage.ErrorInfo] {
            socket.messages.compactMap { if case .error(let info) = $0 { info } else { nil } }
        }

        @Test func candidatesAreRecordedNeverSentToAndBadOnesRefused() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let victim = try await UDPProbe.bind()
            let victimPort = try #require(victim.channel.localAddress?.port)
            let socket = try await AttackTests.CallLimits.session(edge, try await edge.token(identity: "mallory"))
            #expect(socket.messages.contains { if case .welcome(let welcome) = $0 { welcome.offers("candidates") } else { false } })
            try await socket.send(.invite(.init(ice: AttackTests.Calls.offer(), codecs: ["PCMU"])))
            await socket.wait(upTo: .seconds(20)) { AttackTests.CallLimits.answerSid($0) != nil || $0.errorCode != nil }
            let callSid = try #require(AttackTests.CallLimits.answerSid(socket), "no answer: \(socket.summary)")

            // A third party's address: recorded, nothing sent there.
            try await socket.send(.candidates(.init(callSid: callSid, candidates: [Self.candidate("127.0.0.1", port: UInt16(victimPort))])))
            // Refused, each with 70002 naming the call; the session goes on.
            let refused: [SignalingMessage] = [
                .candidates(.init(callSid: callSid, candidates: (0..<17).map { Self.candidate("127.0.0.1", port: UInt16(1000 + $0)) })),
                .candidates(.init(callSid: callSid, candidates: [])),
                .candidates(.init(callSid: callSid, candidates: [Self.candidate("victim.example", port: 9)])),
                .candidates(.init(callSid: callSid, candidates: [Self.candidate("127.0.0.1", port: 9, foundation: String(repeating: "f", count: 33))])),
                .candidates(.init(callSid: "CA" + String(repeating: "0", count: 32), candidates: [Self.candidate("127.0.0.1", port: 9)])),
            ]
            for message in refused { try await socket.send(message) }
            await socket.wait(upTo: .seconds(10)) { Self.errors($0).count >= refused.count || $0.endedAt != nil }
            let errors = Self.errors(socket)
            #expect(errors.count == refused.count, "\(socket.summary)")
            #expect(errors.allSatisfy { $0.code == PreflightError.Code.malformed.rawValue }, "\(errors)")
            #expect(errors.prefix(4).allSatisfy { $0.callSid == callSid }, "\(errors)")
            #expect(socket.endedAt == nil, "the session ended: \(socket.summary)")

            // The valid one is in the call's events once the edge handled it; by then it had
            // every chance to send, and the victim got nothing.
            var kept = 0
            _ = try await eventually { kept = try await AttackTests.CallLimits.events(edge, callSid)?.kept ?? 0; return kept >= 1 }
            #expect(kept == 1, "the trickled candidate, and nothing of the refused ones")
            #expect(victim.counts.received.isEmpty, "the edge sent \(victim.counts.received.count) datagrams to an unverified candidate")
            try await socket.send(.hangup(.init(callSid: callSid)))
            await socket.close()
            await victim.close()
            try edge.expectSaneLog()
        }
    }
}

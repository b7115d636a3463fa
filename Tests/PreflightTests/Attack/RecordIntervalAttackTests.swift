import Foundation
import NIOCore
import PreflightCore
import PreflightEdge
import Testing

extension AttackTests {
    /// The record-playback application's `interval` parameter (the echo test's) against a real
    /// edge process: hostile values are refused with 70005 before any media session opens, and
    /// the edge lives on; a valid one records that long (2 s: 100 frames, whatever was sent).
    @Suite struct RecordInterval {
        @Test func hostileIntervalsAreRefused() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            for value in ["1", "11", "0", "-2", "2.5", "", "abc", "99999999999999999999", "1e9", " 5", "５", String(repeating: "9", count: 10_000)] {
                let socket = try await edge.hello(try await edge.token(application: .recordPlayback))
                try #require(socket.welcomed, "no welcome: \(socket.summary)")
                try await socket.send(.invite(.init(ice: Calls.offer(), codecs: ["PCMU"], params: ["interval": value])))
                await socket.wait(upTo: .seconds(5)) { $0.errorCode != nil || $0.messages.contains { if case .answer = $0 { true } else { false } } }
                #expect(socket.errorCode == PreflightError.Code.invalidArgument.rawValue, "\(value.prefix(20)): \(socket.summary)")
                #expect(!socket.messages.contains { if case .answer = $0 { true } else { false } }, "\(value.prefix(20)) was answered")
            }
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }

        /// An interval of 2 s records 100 frames of the 300 sent, and plays back those 100 (one
        /// check, the budget is what the client sent).
        @Test func aValidIntervalRecordsThatLong() async throws {
            let edge = try await AttackedEdge.start(["--packet-rate", "1000"])
            defer { edge.stop() }
            let signaling = try await edge.hello(try await edge.token(application: .recordPlayback))
            let (ufrag, pwd) = ICEParameters.randomCredentials()
            try await signaling.send(.invite(.init(ice: ICEParameters(ufrag: ufrag, pwd: pwd), codecs: ["PCMU"], params: ["interval": "2"])))
            await signaling.wait(upTo: .seconds(10)) { $0.messages.contains { if case .answer = $0 { true } else { false } } }
            let answer = try #require(signaling.messages.lazy.compactMap { if case .answer(let answer) = $0 { answer } else { nil } }.first)
            let candidate = try #require(answer.ice.candidates.first)
            let call = AttackCall(
                signaling: signaling, edgeUfrag: answer.ice.ufrag, edgePassword: answer.ice.pwd, clientUfrag: ufrag,
                media: try SocketAddress(ipAddress: candidate.address, port: Int(candidate.port)))
            let client = try await UDPProbe.bind()
            try await client.send(try call.check(nominate: true), to: call.media)
            #expect(await client.awaitReceived(1, upTo: .seconds(30)))
            for sequence in 0..<300 {
                try await client.send(try AttackCall.rtp(sequence: UInt16(sequence)), to: call.media)
                try await Task.sleep(for: .milliseconds(5))
            }
            let hungUp = await signaling.wait(upTo: .seconds(15)) { socket in socket.messages.contains { if case .hangup = $0 { true } else { false } } }
            #expect(hungUp, "\(signaling.summary)")
            // The playback: 100 PCMU frames (RTP version 2, payload type 0), besides the check's answer.
            let played = client.received.filter { $0.count > 12 && $0[0] >> 6 == 2 && $0[1] & 0x7F == 0 }
            #expect(played.count == 100, "received \(client.received.count), \(played.count) PCMU")
            try await edge.expectAlive()
        }
    }
}

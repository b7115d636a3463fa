import Foundation
import NIOCore
import PreflightCore
import PreflightEdge
import Testing

extension AttackTests {
    /// Attacks through the call's codec: offers built to be expensive or to forge the log, an
    /// accept that would put a second codec on a bridge, and media of a payload type the call
    /// did not negotiate.
    @Suite struct Codecs {
        /// Codec lists no client sends: very long with the one known codec far down, names of
        /// terminal escapes and control bytes, one name of 16 KB. Each is 70103 and a sane log.
        enum HostileOffer: String, CaseIterable, Sendable, CustomTestStringConvertible {
            case eightThousandEntries, escapesAndControls, oneHugeName

            var testDescription: String { rawValue }

            var codecs: [String] {
                switch self {
                case .eightThousandEntries: Array(repeating: "x", count: 8000) + ["opus"]
                case .escapesAndControls: ["\u{1B}[31mPCMU\u{1B}[0m", "\u{0}opus", "op\nus"]
                case .oneHugeName: [String(repeating: "PCMU", count: 4000)]
                }
            }
        }

        @Test(arguments: HostileOffer.allCases)
        func hostileOffersAre70103(_ offer: HostileOffer) async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let socket = try await edge.hello(try await edge.token())
            let (ufrag, pwd) = ICEParameters.randomCredentials()
            try await socket.send(.invite(.init(ice: ICEParameters(ufrag: ufrag, pwd: pwd), codecs: offer.codecs)))
            await socket.wait(upTo: .seconds(10)) { $0.errorCode != nil || $0.endedAt != nil }
            #expect(socket.errorCode == PreflightError.Code.unsupportedCodec.rawValue, "error \(String(describing: socket.errorCode))")
            #expect(!socket.messages.contains { if case .answer = $0 { true } else { false } })
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }

        /// An Opus call rings on two of bob's devices; one accepts offering only PCMU (a second
        /// codec on the bridge): it gets a hangup with 70103 and no answer, and the call still
        /// rings on the other, which answers it in Opus.
        @Test func anAcceptCannotPutASecondCodecOnTheBridge() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let device = try await Calls.signIn(edge, "bob", register: true)
            let other = try await Calls.signIn(edge, "bob", register: true)
            let alice = try await Calls.signIn(edge, "alice")
            try await alice.send(.invite(.init(ice: Calls.offer(), codecs: ["opus"], params: ["To": "client:bob"])))
            #expect(await device.wait(upTo: .seconds(5)) { !Calls.incoming($0).isEmpty }, "\(device.summary)")
            #expect(await other.wait(upTo: .seconds(5)) { !Calls.incoming($0).isEmpty }, "\(other.summary)")
            let incoming = try #require(Calls.incoming(device).first)
            #expect(incoming.codec == "opus")
            try await device.send(.accept(.init(callSid: incoming.callSid, ice: Calls.offer(), codecs: ["PCMU", "\u{1B}[2J"])))
            #expect(await device.wait(upTo: .seconds(5)) { !Calls.hangups($0).isEmpty }, "\(device.summary)")
            #expect(Calls.hangups(device).first?.code == PreflightError.Code.unsupportedCodec.rawValue)
            #expect(!device.messages.contains { if case .answer = $0 { true } else { false } })
            #expect(device.endedAt == nil, "the device's session ended: \(device.summary)")
            try await other.send(.accept(.init(callSid: incoming.callSid, ice: Calls.offer(), codecs: ["PCMU", "opus"])))
            #expect(await other.wait(upTo: .seconds(5)) { $0.messages.contains { if case .answer = $0 { true } else { false } } })
            let answer = other.messages.lazy.compactMap { if case .answer(let answer) = $0 { answer } else { nil } }.first
            #expect(answer?.codec == "opus")
            #expect(answer?.payloadType == 111)
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }

        /// An Opus record-playback session fed PCMU frames records none of them, so its playback
        /// sends nothing back: no payload type the call did not negotiate reaches anyone.
        @Test func mediaOfAnotherPayloadTypeIsNeitherRecordedNorPlayedBack() async throws {
            let edge = try await AttackedEdge.start(["--packet-rate", "1000"])
            defer { edge.stop() }
            let call = try await AttackCall.open(on: edge, application: .recordPlayback, codecs: ["opus"])
            let probe = try await UDPProbe.bind()
            try await probe.send(try call.check(nominate: true), to: call.media)
            #expect(await probe.awaitReceived(1, upTo: .seconds(30)), "the check got no answer")
            for sequence in 0..<100 {
                try await probe.send(try AttackCall.rtp(sequence: UInt16(sequence)), to: call.media)
                try await Task.sleep(for: .milliseconds(5))
            }
            let hungUp = await call.signaling.wait(upTo: .seconds(15)) { socket in
                socket.messages.contains { if case .hangup = $0 { true } else { false } }
            }
            #expect(hungUp, "no hangup after the recording: \(call.signaling.summary)")
            let rtpBack = probe.received.filter { datagram in datagram.withUnsafeBytes { PacketKind.classify($0) } == .rtp }
            #expect(rtpBack.isEmpty, "the edge played back \(rtpBack.count) packets")
            await probe.close()
            try await edge.expectAlive()
            await call.hangUp()
            try edge.expectSaneLog()
        }
    }
}

import Foundation
import NIOCore
import PreflightCore
import PreflightEdge
import Testing

extension AttackTests {
    /// Attacks on the connectivity check against a real `preflight serve`: the edge forwards what
    /// the publish connection sends to the subscribe connection, so the subscribe address must be
    /// the same host, receive no more than the publish address sent, and get nothing on its own
    /// (docs/security.md).
    @Suite struct ConnectivityCheck {
        /// A check opened over signaling: the two legs' credentials and the edge's media address.
        struct OpenCheck {
            let publish: AttackCall
            let subscribe: AttackCall
        }

        static func open(on edge: AttackedEdge) async throws -> OpenCheck {
            let signaling = try await edge.hello(try await edge.token(identity: "checker"))
            try #require(signaling.welcomed, "no welcome: \(signaling.summary)")
            let (publishUfrag, publishPassword) = ICEParameters.randomCredentials()
            let (subscribeUfrag, subscribePassword) = ICEParameters.randomCredentials()
            try await signaling.send(.connectivityCheck(.init(
                publish: ICEParameters(ufrag: publishUfrag, pwd: publishPassword),
                subscribe: ICEParameters(ufrag: subscribeUfrag, pwd: subscribePassword), codecs: ["PCMU"])))
            await signaling.wait(upTo: .seconds(10)) { socket in
                socket.messages.contains { if case .answer = $0 { true } else { false } } || socket.errorCode != nil
            }
            let answer = try #require(
                signaling.messages.lazy.compactMap { if case .answer(let answer) = $0 { answer } else { nil } }.first,
                "no answer: \(signaling.summary)")
            #expect(answer.application == "connectivity-check" && answer.callSid.hasPrefix("CC"))
            let subscribe = try #require(answer.subscribeIce)
            let candidate = try #require(answer.ice.candidates.first)
            let media = try SocketAddress(ipAddress: candidate.address, port: Int(candidate.port))
            return OpenCheck(
                publish: AttackCall(
                    signaling: signaling, edgeUfrag: answer.ice.ufrag, edgePassword: answer.ice.pwd, clientUfrag: publishUfrag, media: media),
                subscribe: AttackCall(
                    signaling: signaling, edgeUfrag: subscribe.ufrag, edgePassword: subscribe.pwd, clientUfrag: subscribeUfrag, media: media))
        }

        /// A video test stream packet of `size` payload bytes.
        static func video(sequence: UInt16, size: Int = 1000) throws -> [UInt8] {
            try RTPPacket(
                payloadType: SignalingMessage.ConnectivityCheck.videoPayloadType, sequenceNumber: sequence, timestamp: UInt32(sequence) * 3000,
                ssrc: 0xABCD, payload: ArraySlice(VideoTestPayload(frameNumber: UInt32(sequence), index: 0, count: 1).header + [UInt8](repeating: 7, count: size))
            ).encoded()
        }

        static func isRTP(_ datagram: [UInt8]) -> Bool {
            datagram.withUnsafeBytes { PacketKind.classify($0) == .rtp }
        }

        /// Both legs nominated from `publishHost` and `subscribeHost`; the publish leg then sends
        /// audio and video. Returns what each probe received and sent, once what is `forwarded`
        /// (every packet, or none) had time to arrive.
        static func run(
            publishHost: String, subscribeHost: String, packets: Int = 60, forwarded: Bool
        ) async throws -> (publish: UDPProbe.Tally, subscribe: UDPProbe.Tally) {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let check = try await Self.open(on: edge)
            let publish = try await UDPProbe.bind(host: publishHost)
            let subscribe = try await UDPProbe.bind(host: subscribeHost)
            try await publish.send(try check.publish.check(nominate: true), to: check.publish.media)
            try await subscribe.send(try check.subscribe.check(nominate: true), to: check.subscribe.media)
            let publishChecked = await publish.awaitReceived(1, upTo: .seconds(30))
            let subscribeChecked = await subscribe.awaitReceived(1, upTo: .seconds(30))
            #expect(publishChecked && subscribeChecked)
            for sequence in 0..<UInt16(packets) {
                try await publish.send(sequence % 2 == 0 ? try AttackCall.rtp(sequence: sequence / 2) : try Self.video(sequence: sequence / 2), to: check.publish.media)
            }
            // The subscribe leg's own RTP: it must not come back anywhere.
            for sequence in 0..<UInt16(20) { try await subscribe.send(try AttackCall.rtp(sequence: sequence, ssrc: 99), to: check.subscribe.media) }
            if forwarded {
                let all = await subscribe.awaitReceived(upTo: .seconds(30)) { $0.filter(Self.isRTP).count >= packets }
                #expect(all, "forwarded \(subscribe.received.filter(Self.isRTP).count) of \(packets)")
            }
            // A window for what must not arrive (more, or anything at all) to show.
            try await Task.sleep(for: .milliseconds(500))
            let counts = (publish.counts, subscribe.counts)
            await publish.close()
            await subscribe.close()
            try await edge.expectAlive()
            await check.publish.hangUp()
            return counts
        }

        @Test func aSubscribeLegOnTheSameHostGetsWhatThePublishLegSentAndNoMore() async throws {
            let (publish, subscribe) = try await Self.run(publishHost: "127.0.0.1", subscribeHost: "127.0.0.1", forwarded: true)
            let forwarded = subscribe.received.filter(Self.isRTP)
            #expect(forwarded.count == 60, "forwarded \(forwarded.count) of 60")
            // Never more than the publish address sent: datagrams, and bytes plus 64 a datagram.
            #expect(forwarded.count + publish.received.count <= publish.sentDatagrams)
            #expect(forwarded.reduce(0) { $0 + $1.count } <= publish.sentBytes + 64 * publish.sentDatagrams)
            // Nothing media-like goes back to the publish address, and the subscribe leg's own RTP is not answered.
            #expect(publish.received.filter(Self.isRTP).isEmpty)
            let headers = forwarded.compactMap { packet in packet.withUnsafeBytes { try? RTPHeader(parsing: $0) } }
            #expect(!headers.contains { $0.ssrc == 99 })
            // Audio and video keep apart: two SSRCs, gap-free sequence numbers each.
            #expect(Set(headers.map(\.ssrc)).count == 2)
            for ssrc in Set(headers.map(\.ssrc)) {
                let sequences = headers.filter { $0.ssrc == ssrc }.map(\.sequenceNumber)
                #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $1 == $0 &+ 1 }, "\(sequences)")
            }
        }

        @Test func aSubscribeLegOnAnotherHostGetsNothing() async throws {
            // 127.0.0.2 is loopback too, but another address: the media must not go there.
            let (_, subscribe) = try await Self.run(publishHost: "127.0.0.1", subscribeHost: "127.0.0.2", forwarded: false)
            #expect(subscribe.received.filter(Self.isRTP).isEmpty, "\(subscribe.received.count) datagrams")
            #expect(subscribe.received.count <= subscribe.sentDatagrams)
        }

        enum BadRequest: String, CaseIterable, Sendable, CustomTestStringConvertible {
            case sameUfragForBoth, badSubscribeUfrag, noCodecWeSpeak, secondCheckDuringOne
            var testDescription: String { rawValue }
        }

        /// Each bad request gets its code and ends the session.
        @Test(arguments: BadRequest.allCases)
        func badRequestsAreCodedErrors(_ bad: BadRequest) async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let socket: RawWebSocket
            let expected: PreflightError.Code
            let good = ICEParameters(ufrag: "abcd", pwd: String(repeating: "p", count: 22))
            if bad == .secondCheckDuringOne {
                socket = try await Self.open(on: edge).publish.signaling
                try await socket.send(.connectivityCheck(.init(publish: good, subscribe: ICEParameters(ufrag: "efgh", pwd: good.pwd), codecs: ["PCMU"])))
                expected = .malformed
            } else {
                socket = try await edge.hello(try await edge.token(identity: "checker"))
                let request: SignalingMessage.ConnectivityCheck =
                    switch bad {
                    case .sameUfragForBoth: .init(publish: good, subscribe: good, codecs: ["PCMU"])
                    case .badSubscribeUfrag: .init(publish: good, subscribe: ICEParameters(ufrag: "a b\u{1b}", pwd: good.pwd), codecs: ["PCMU"])
                    default: .init(publish: good, subscribe: ICEParameters(ufrag: "efgh", pwd: good.pwd), codecs: ["G729"])
                    }
                try await socket.send(.connectivityCheck(request))
                expected = bad == .noCodecWeSpeak ? .unsupportedCodec : .malformed
            }
            await socket.wait(upTo: .seconds(10)) { $0.errorCode != nil || $0.endedAt != nil }
            #expect(socket.errorCode == expected.rawValue, "\(socket.summary)")
            #expect(await socket.awaitEnd(upTo: .seconds(5)))
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }
    }
}

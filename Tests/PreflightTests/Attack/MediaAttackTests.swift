import Foundation
import NIOCore
import PreflightCore
import PreflightEdge
import Testing

extension AttackTests {
    /// Attacks on the UDP media port: STUN checks with integrity attributes of impossible lengths,
    /// and a second address that tries to draw a session's playback.
    @Suite struct MediaPort {
        /// STUN checks whose integrity or fingerprint attribute has a length no sender may write.
        /// Each once crashed a decoder or slipped past the integrity check.
        enum HostileCheck: String, CaseIterable, Sendable, CustomTestStringConvertible {
            /// 24 bytes: the header and FINGERPRINT with length 0, nothing else.
            case bareFingerprintOfLength0
            /// 24 bytes: the header and MESSAGE-INTEGRITY with length 0, nothing else.
            case bareMessageIntegrityOfLength0
            /// The live session's USERNAME, USE-CANDIDATE and MESSAGE-INTEGRITY-SHA256 of length 0.
            case nominationWithSHA256IntegrityOfLength0
            /// The same with MESSAGE-INTEGRITY-SHA256 of length 1 (and 3 padding bytes).
            case nominationWithSHA256IntegrityOfLength1
            /// The same with a well-formed 16-byte MESSAGE-INTEGRITY-SHA256 of zeros: the wrong HMAC.
            case nominationWithForgedSHA256Integrity

            var testDescription: String { rawValue }

            /// Whether the edge may answer with an error response (401/400) rather than nothing: only
            /// when the message parses; the bare 24-byte ones do not.
            var mayBeRefusedAloud: Bool {
                switch self {
                case .bareFingerprintOfLength0, .bareMessageIntegrityOfLength0: false
                default: true
                }
            }

            func bytes(for call: AttackCall) -> [UInt8] {
                switch self {
                case .bareFingerprintOfLength0: Self.message([Self.attribute(0x8028, [])])
                case .bareMessageIntegrityOfLength0: Self.message([Self.attribute(0x0008, [])])
                case .nominationWithSHA256IntegrityOfLength0: Self.nomination(call, integrity: [])
                case .nominationWithSHA256IntegrityOfLength1: Self.nomination(call, integrity: [0x42])
                case .nominationWithForgedSHA256Integrity: Self.nomination(call, integrity: Array(repeating: 0, count: 16))
                }
            }

            static func nomination(_ call: AttackCall, integrity: [UInt8]) -> [UInt8] {
                message([
                    attribute(0x0006, Array(call.username.utf8)),  // USERNAME
                    attribute(0x0025, []),  // USE-CANDIDATE
                    attribute(0x001C, integrity),  // MESSAGE-INTEGRITY-SHA256
                ])
            }

            /// A Binding request built byte by byte: no encoder that would refuse the lengths.
            static func message(_ attributes: [[UInt8]]) -> [UInt8] {
                let body = attributes.flatMap { $0 }
                var bytes: [UInt8] = [0x00, 0x01, UInt8(body.count >> 8), UInt8(body.count & 0xFF), 0x21, 0x12, 0xA4, 0x42]
                bytes += STUNTransactionID.random().bytes
                return bytes + body
            }

            /// Type, length and value, padded to 4 bytes with zeros.
            static func attribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
                [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value
                    + Array(repeating: 0, count: (4 - value.count % 4) % 4)
            }
        }

        @Test(arguments: HostileCheck.allCases)
        func malformedIntegrityIsRefusedAndVerifiesNothing(_ hostile: HostileCheck) async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let call = try await AttackCall.open(on: edge)
            let attacker = try await UDPProbe.bind()
            let datagram = hostile.bytes(for: call)
            if hostile.mayBeRefusedAloud == false { #expect(datagram.count == 24) }
            try await attacker.send(datagram, to: call.media)
            try await Task.sleep(for: .milliseconds(300))
            let afterCheck = attacker.counts
            for reply in afterCheck.received {
                let message = try STUNMessage(decoding: reply)
                #expect(message.type == .bindingError, "answered with \(message.type)")
                #expect([400, 401].contains(message.errorCode?.code ?? 0), "\(String(describing: message.errorCode))")
            }
            if hostile.mayBeRefusedAloud {
                #expect(afterCheck.received.count <= 1)
                #expect(afterCheck.receivedBytes <= datagram.count + 64)
            } else {
                #expect(afterCheck.received.isEmpty, "\(afterCheck.received.count) replies to a 24-byte check")
            }
            // The address must not have been verified: its media is dropped, nothing comes back.
            for sequence in 0..<5 { try await attacker.send(try AttackCall.rtp(sequence: UInt16(sequence)), to: call.media) }
            // The control: a genuine check from another address is answered and its media echoed, so
            // the silence above is the edge refusing, not a dead session.
            let genuine = try await UDPProbe.bind()
            try await genuine.send(try call.check(nominate: true), to: call.media)
            #expect(await genuine.awaitReceived(1, upTo: .seconds(30)), "the genuine check got no answer")
            for sequence in 0..<3 { try await genuine.send(try AttackCall.rtp(sequence: UInt16(sequence)), to: call.media) }
            #expect(await genuine.awaitReceived(4, upTo: .seconds(30)), "the genuine caller's RTP was not echoed")
            try await Task.sleep(for: .milliseconds(300))
            let final = attacker.counts
            #expect(final.received.count == afterCheck.received.count, "the attacker's RTP was echoed: \(final.received.count - afterCheck.received.count) datagram(s)")
            print("attack \(hostile): check \(datagram.count) B → \(afterCheck.received.count) reply(ies), \(afterCheck.receivedBytes) B; RTP → \(final.received.count - afterCheck.received.count) echoes")
            await attacker.close()
            await genuine.close()
            try await edge.expectAlive()
            await call.hangUp()
            try edge.expectSaneLog()
        }

        /// When the second address nominates: before the recording is complete (all playback is
        /// aimed at it) or while the playback to the first address runs.
        enum RedirectMoment: String, CaseIterable, Sendable, CustomTestStringConvertible {
            case beforePlayback
            case duringPlayback
            var testDescription: String { rawValue }
        }

        /// Record-playback: A sends checks and 250 frames; B, which knows the credentials but sent
        /// one check, nominates itself to receive the playback. Neither address may receive more
        /// datagrams than it sent, nor more bytes than it sent plus 64 per datagram.
        @Test(arguments: RedirectMoment.allCases)
        func playbackCannotBeRedirectedOrAmplified(_ moment: RedirectMoment) async throws {
            // 250 frames sent in about half a second: above the default 200/s per source.
            let edge = try await AttackedEdge.start(["--packet-rate", "1000"])
            defer { edge.stop() }
            let call = try await AttackCall.open(on: edge, application: .recordPlayback)
            let first = try await UDPProbe.bind()
            let second = try await UDPProbe.bind()
            try await first.send(try call.check(nominate: false), to: call.media)
            try await first.send(try call.check(nominate: true), to: call.media)
            #expect(await first.awaitReceived(2, upTo: .seconds(30)), "A's checks got no answers")
            let frames = 250
            let redirectAt = moment == .beforePlayback ? 240 : frames
            for sequence in 0..<frames {
                if sequence == redirectAt { try await redirect(second, call) }
                try await first.send(try AttackCall.rtp(sequence: UInt16(sequence)), to: call.media)
                try await Task.sleep(for: .milliseconds(2))
            }
            if moment == .duringPlayback {
                // The recording closes within 20 ms of its 250th frame; let some playback reach A.
                try await Task.sleep(for: .milliseconds(400))
                try await redirect(second, call)
            }
            // The edge hangs up 3 s after its playback ends: wait for that, so that everything the
            // playback sent (5 s for 250 frames had it not been stopped) is counted.
            let hungUp = await call.signaling.wait(upTo: .seconds(15)) { socket in
                socket.messages.contains { if case .hangup = $0 { true } else { false } }
            }
            #expect(hungUp, "no hangup after the recording: \(call.signaling.summary)")
            try await Task.sleep(for: .milliseconds(200))
            let a = first.counts
            let b = second.counts
            print(
                "redirect \(moment): A sent \(a.sentDatagrams) dg / \(a.sentBytes) B, received \(a.received.count) dg / \(a.receivedBytes) B; "
                    + "B sent \(b.sentDatagrams) dg / \(b.sentBytes) B, received \(b.received.count) dg / \(b.receivedBytes) B")
            #expect(b.received.count <= b.sentDatagrams)
            #expect(b.receivedBytes <= b.sentBytes + 64 * b.sentDatagrams)
            #expect(a.received.count <= a.sentDatagrams)
            #expect(a.receivedBytes <= a.sentBytes + 64 * a.sentDatagrams)
            if moment == .duringPlayback {
                // The playback did run, to A, until B's nomination.
                #expect(a.received.count > 2, "A received no playback before the redirect")
            }
            // B's nomination was accepted (its check answered), so the playback really was aimed at it.
            #expect(b.received.contains { (try? STUNMessage(decoding: $0))?.type == .bindingSuccess })
            await first.close()
            await second.close()
            try await edge.expectAlive()
            await call.hangUp()
            try edge.expectSaneLog()
        }

        private func redirect(_ probe: UDPProbe, _ call: AttackCall) async throws {
            try await probe.send(try call.check(nominate: true), to: call.media)
            #expect(await probe.awaitReceived(1, upTo: .seconds(30)), "B's nomination got no answer")
        }
    }
}

import Foundation
import NIOCore
import PreflightCore
import PreflightEdge
import PreflightTesting
import Testing

extension AttackTests {
    /// The batched media path (vector reads, one buffer for a burst's replies, several
    /// `SO_REUSEPORT` sockets) under hostile bursts against a real edge process: garbage of every
    /// size mixed into a genuine caller's stream. Each echo must carry exactly its own packet's
    /// payload (no bytes of a neighbour in the shared buffer), and nothing may go to the attacker.
    @Suite(.loadsTheMachine) struct MediaBursts {
        /// Datagrams no client sends: empty, truncated RTP, a CSRC count past the end, an extension
        /// length past the end, RTP-looking noise, and one larger than the 2 KiB read slice.
        static func hostile(_ index: Int) -> [UInt8] {
            var random = SystemRandomNumberGenerator()
            switch index % 6 {
            case 0: return []
            case 1: return [0x80, 0x00, 0x00]
            case 2: return [0x8F, 0x00, 0x00, 0x01] + [UInt8](repeating: 0, count: 8)
            case 3: return [0x90, 0x00, 0x00, 0x02] + [UInt8](repeating: 0, count: 8) + [0xBE, 0xDE, 0xFF, 0xFF]
            case 4: return (0..<Int.random(in: 12...1500, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            default: return [0x80, 0x00, 0x00, 0x03] + [UInt8](repeating: 0xAB, count: 3000)
            }
        }

        @Test(arguments: [1, 2])
        func hostileBurstsLeaveEveryEchoWholeAndTheAttackerUnanswered(mediaThreads: Int) async throws {
            let edge = try await AttackedEdge.start(["--packet-rate", "100000", "--media-threads", "\(mediaThreads)"])
            defer { edge.stop() }
            let call = try await AttackCall.open(on: edge)
            let genuine = try await UDPProbe.bind()
            try await genuine.send(try call.check(nominate: true), to: call.media)
            #expect(await genuine.awaitReceived(1, upTo: .seconds(30)), "the genuine check got no answer")
            let attacker = try await UDPProbe.bind()
            // Bursts with no pause: the edge reads them many to a system call.
            let frames = 300
            for sequence in 0..<frames {
                let payload = (0..<160).map { UInt8(truncatingIfNeeded: $0 &+ sequence &* 7) }
                let rtp = try RTPPacket(
                    payloadType: 0, sequenceNumber: UInt16(sequence), timestamp: UInt32(sequence) * 160, ssrc: 0x1234_5678,
                    payload: payload[...]
                ).encoded()
                try await genuine.send(rtp, to: call.media)
                try await attacker.send(Self.hostile(sequence), to: call.media)
                // The attacker also tries the genuine caller's own stream from its own address.
                if sequence % 10 == 0 { try await attacker.send(rtp, to: call.media) }
            }
            #expect(await genuine.awaitReceived(1 + frames, upTo: .seconds(30)), "echoes missing: \(genuine.received.count - 1) of \(frames)")
            try await Task.sleep(for: .milliseconds(300))
            var seen = Set<UInt16>()
            for reply in genuine.received.dropFirst() {
                let packet = try RTPPacket(decoding: reply)
                let report = try #require(reply.withUnsafeBytes { raw in
                    (try? RTPHeader(parsing: raw)).flatMap { MediaExtension.echoReport($0, in: raw) }
                })
                let sequence = Int(report.originalSequence)
                #expect(packet.payload == ((0..<160).map { UInt8(truncatingIfNeeded: $0 &+ sequence &* 7) })[...], "echo \(sequence) carries other bytes")
                seen.insert(report.originalSequence)
            }
            #expect(seen.count == frames)
            #expect(attacker.received.isEmpty, "the attacker got \(attacker.received.count) datagram(s)")
            print("media bursts (\(mediaThreads) thread(s)): \(frames) echoes whole, attacker sent \(attacker.counts.sentDatagrams), got \(attacker.received.count); edge RSS \(try edge.rssKiB()) KiB")
            await attacker.close()
            await genuine.close()
            try await edge.expectAlive()
            await call.hangUp()
            try edge.expectSaneLog()
        }
    }
}

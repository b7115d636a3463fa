import Foundation
import NIOCore
import PreflightCore
import PreflightEdge
import Testing

extension AttackTests {
    /// Attacks on the last-mile probe against a real `preflight serve`: the downlink probe is the
    /// one place the edge sends more than it receives, so it must go only to the verified client,
    /// only while that client is heard from, and never past its byte budget (docs/security.md).
    @Suite struct Probe {
        /// A probe session opened over signaling, with its media address and credentials.
        struct OpenProbe {
            let call: AttackCall
            let callSid: String
        }

        static func open(on edge: AttackedEdge, up: Int?, down: Int?) async throws -> OpenProbe {
            let signaling = try await edge.hello(try await edge.token(identity: "prober"))
            try #require(signaling.welcomed, "no welcome: \(signaling.summary)")
            let (clientUfrag, clientPassword) = ICEParameters.randomCredentials()
            try await signaling.send(.probe(.init(
                ice: ICEParameters(ufrag: clientUfrag, pwd: clientPassword), expectedUplinkBitrate: up, expectedDownlinkBitrate: down)))
            await signaling.wait(upTo: .seconds(10)) { socket in
                socket.messages.contains { if case .answer = $0 { true } else { false } } || socket.errorCode != nil
            }
            let answer = try #require(
                signaling.messages.lazy.compactMap { if case .answer(let answer) = $0 { answer } else { nil } }.first,
                "no answer: \(signaling.summary)")
            #expect(answer.application == "probe")
            #expect(answer.callSid.hasPrefix("PB"))
            let candidate = try #require(answer.ice.candidates.first)
            let call = AttackCall(
                signaling: signaling, edgeUfrag: answer.ice.ufrag, edgePassword: answer.ice.pwd, clientUfrag: clientUfrag,
                media: try SocketAddress(ipAddress: candidate.address, port: Int(candidate.port)))
            return OpenProbe(call: call, callSid: answer.callSid)
        }

        static func probePacket(_ sequence: UInt32, size: Int = 1200) throws -> [UInt8] {
            try #require(ProbePacket.encode(sequence: sequence, sendMicroseconds: UInt64(sequence) * 1000, ssrc: 7, size: size, fromEdge: false))
        }

        enum BadRequest: String, CaseIterable, Sendable, CustomTestStringConvertible {
            case expectedBelowRange, expectedAboveRange, noDirection
            case trainOverTheCeiling, trainWithoutADownlink, trainTooBig, trainTooLong, trainNegative
            var testDescription: String { rawValue }
        }

        /// Each bad request gets its code and ends the session; the edge sends no media for it.
        @Test(arguments: BadRequest.allCases)
        func badRequestsAreCodedErrors(_ bad: BadRequest) async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let expectedCode: Int
            let socket: RawWebSocket
            switch bad {
            case .expectedBelowRange, .expectedAboveRange, .noDirection:
                socket = try await edge.hello(try await edge.token(identity: "prober"))
                let (up, down): (Int?, Int?) =
                    switch bad {
                    case .expectedBelowRange: (99_999, nil)
                    case .expectedAboveRange: (nil, 5_000_001)
                    default: (nil, nil)
                    }
                try await socket.send(.probe(.init(ice: ICEParameters(ufrag: "abcd", pwd: String(repeating: "p", count: 22)), expectedUplinkBitrate: up, expectedDownlinkBitrate: down)))
                expectedCode = PreflightError.Code.invalidProbeConfiguration.rawValue
            default:
                let probe = try await Self.open(on: edge, up: 1_000_000, down: bad == .trainWithoutADownlink ? nil : 1_000_000)
                socket = probe.call.signaling
                let train: SignalingMessage.ProbeTrain =
                    switch bad {
                    case .trainOverTheCeiling: .init(rate: 2_000_001, size: 1200, duration: 100)
                    case .trainTooBig: .init(rate: 100_000, size: 1500, duration: 100)
                    case .trainTooLong: .init(rate: 100_000, size: 1200, duration: 60_000)
                    case .trainNegative: .init(rate: -5, size: 1200, duration: 100)
                    default: .init(rate: 100_000, size: 1200, duration: 100)
                    }
                try await socket.send(.probeTrain(train))
                expectedCode = PreflightError.Code.probeRefused.rawValue
            }
            #expect(await socket.wait(upTo: .seconds(5)) { $0.errorCode != nil }, "no error: \(socket.summary)")
            #expect(socket.errorCode == expectedCode, "\(socket.summary)")
            #expect(await socket.awaitEnd(upTo: .seconds(5)), "the session did not end")
            await socket.close()
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }

        /// The downlink goes only to the address that passed a check, never before the check, and
        /// never to another address that knows the credentials but did not check (or to one that
        /// merely sends media).
        @Test func downlinkGoesOnlyToTheVerifiedClient() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let probe = try await Self.open(on: edge, up: nil, down: 1_000_000)
            let client = try await UDPProbe.bind()
            let bystander = try await UDPProbe.bind()
            // A train before any check: no peer, nothing goes anywhere.
            try await probe.call.signaling.send(.probeTrain(.init(rate: 1_000_000, size: 1000, duration: 300)))
            try await bystander.send(try AttackCall.rtp(sequence: 1), to: probe.call.media)
            try await Task.sleep(for: .milliseconds(400))
            #expect(client.received.isEmpty && bystander.received.isEmpty)
            // The client checks; a train now reaches it, and only it.
            try await client.send(try probe.call.check(nominate: true), to: probe.call.media)
            #expect(await client.awaitReceived(1, upTo: .seconds(3)))
            try await probe.call.signaling.send(.probeTrain(.init(rate: 1_000_000, size: 1000, duration: 500)))
            try await Task.sleep(for: .milliseconds(700))
            try await bystander.send(try AttackCall.rtp(sequence: 2), to: probe.call.media)
            try await Task.sleep(for: .milliseconds(100))
            let probes = client.received.filter { $0.count == 1000 }
            // 500 ms at 1 Mbit/s of 1042-byte (wire) packets: 60; pacing allows a few either way.
            #expect(probes.count >= 45 && probes.count <= 66, "the client received \(probes.count) probe packets")
            #expect(bystander.received.isEmpty, "the bystander received \(bystander.received.count) datagrams")
            for (index, bytes) in probes.enumerated() {
                let sequence = try bytes.withUnsafeBytes { raw in try #require(ProbePacket.decode(try RTPHeader(parsing: raw), in: raw)).sequence }
                #expect(sequence == UInt32(index))
            }
            await client.close()
            await bystander.close()
            await probe.call.hangUp()
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }

        /// A client that keeps asking but falls silent on the media path (no consent, no pings) is
        /// sent nothing 3 s after it was last heard; and what it got is within the byte budget.
        @Test func downlinkStopsWhenTheClientFallsSilent() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let probe = try await Self.open(on: edge, up: nil, down: 100_000)
            let client = try await UDPProbe.bind()
            try await client.send(try probe.call.check(nominate: true), to: probe.call.media)
            #expect(await client.awaitReceived(1, upTo: .seconds(3)))
            let heard = ContinuousClock.now
            var lastArrivalCount = 0
            var countAtSilence = 0
            while ContinuousClock.now - heard < .seconds(5) {
                try await probe.call.signaling.send(.probeTrain(.init(rate: 200_000, size: 1000, duration: 400)))
                try await Task.sleep(for: .milliseconds(250))
                lastArrivalCount = client.received.count
                if ContinuousClock.now - heard < .milliseconds(3400) { countAtSilence = lastArrivalCount }
            }
            let total = client.counts.receivedBytes
            print("silent client: \(countAtSilence) datagrams within 3.4 s, \(lastArrivalCount) after 5 s, \(total) B")
            #expect(countAtSilence > 20, "the train never ran: \(countAtSilence)")
            #expect(lastArrivalCount == countAtSilence, "\(lastArrivalCount - countAtSilence) packets after the client fell silent")
            // 100 kbit/s for 12 s: the budget, in wire bytes.
            #expect(total <= 150_000)
            #expect(!probe.call.signaling.messages.contains { if case .error = $0 { true } else { false } })
            await client.close()
            await probe.call.hangUp()
            try await edge.expectAlive()
        }

        /// A client that stays present (a consent check every second) and asks for the ceiling
        /// without end gets the byte budget, 12 s of its expected bitrate, and then nothing more.
        @Test func downlinkStopsAtTheByteBudget() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let probe = try await Self.open(on: edge, up: nil, down: 100_000)
            let client = try await UDPProbe.bind()
            let start = ContinuousClock.now
            var lastCheck = start - .seconds(2)
            var bytesAt7s = 0
            while ContinuousClock.now - start < .seconds(8) {
                if ContinuousClock.now - lastCheck >= .seconds(1) {
                    try await client.send(try probe.call.check(nominate: true), to: probe.call.media)
                    lastCheck = ContinuousClock.now
                }
                try await probe.call.signaling.send(.probeTrain(.init(rate: 200_000, size: 1200, duration: 400)))
                try await Task.sleep(for: .milliseconds(200))
                if ContinuousClock.now - start < .seconds(7) { bytesAt7s = client.received.filter { $0.count == 1200 }.count * 1242 }
            }
            let probeBytes = client.received.filter { $0.count == 1200 }.count * 1242
            print("budget: \(probeBytes) wire bytes of probe packets in 8 s at 200 kbit/s asked (budget 150000)")
            #expect(probeBytes <= 150_000)
            #expect(probeBytes >= 140_000, "the budget was not spent: \(probeBytes)")
            #expect(probeBytes == bytesAt7s, "sending went on after the budget")
            await client.close()
            await probe.call.hangUp()
            try await edge.expectAlive()
        }

        /// Uplink: a flood of probe packets at 20 × the probe's rate is cut to its bucket (2 × the
        /// expected bitrate, 64 KB deep); malformed probe packets are not recorded; the records
        /// go to this probe's signaling only.
        @Test func uplinkFloodIsCutToTheProbesRate() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let probe = try await Self.open(on: edge, up: 100_000, down: nil)
            let other = try await Self.open(on: edge, up: 100_000, down: nil)
            let client = try await UDPProbe.bind()
            try await client.send(try probe.call.check(nominate: true), to: probe.call.media)
            #expect(await client.awaitReceived(1, upTo: .seconds(3)))
            // Malformed: a probe payload type without the sequence number or without a send time.
            let short = try RTPPacket(payloadType: ProbePacket.payloadType, sequenceNumber: 1, timestamp: 0, ssrc: 7, payload: [1, 2][...]).encoded()
            let untimed = try RTPPacket(payloadType: ProbePacket.payloadType, sequenceNumber: 2, timestamp: 0, ssrc: 7, payload: ArraySlice(repeating: 0, count: 100)).encoded()
            try await client.send(short, to: probe.call.media)
            try await client.send(untimed, to: probe.call.media)
            // 1000 packets of 1200 B (1.2 MB) in about a second.
            let start = ContinuousClock.now
            for sequence in 0..<1000 {
                try await client.send(try Self.probePacket(UInt32(sequence)), to: probe.call.media)
                if sequence % 50 == 49 { try await Task.sleep(for: .milliseconds(50)) }
            }
            let elapsed = (ContinuousClock.now - start)
            try await Task.sleep(for: .milliseconds(400))
            let records = probe.call.signaling.messages.compactMap { message -> [(sequence: UInt32, arrivalMicroseconds: UInt64, bytes: Int)]? in
                if case .probeArrivals(let batch) = message { batch.arrivals } else { nil }
            }.flatMap { $0 }
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18 + 0.4
            // The bucket: 64 KB at once plus 200 kbit/s (25 KB/s) over the flood.
            let allowed = (64 * 1024 + 25_000 * seconds) / 1200
            print("uplink flood: 1000 sent in \(elapsed), \(records.count) recorded, at most \(Int(allowed)) allowed")
            #expect(records.count > 20)
            #expect(Double(records.count) <= allowed + 2)
            #expect(records.allSatisfy { $0.bytes == 1200 })
            #expect(Set(records.map(\.sequence)).count == records.count)
            // The other probe's signaling saw none of it.
            #expect(!other.call.signaling.messages.contains { if case .probeArrivals = $0 { true } else { false } })
            // Nothing came back on the media path but the check's answer: probe packets are not echoed.
            #expect(client.received.count == 1)
            await client.close()
            await probe.call.hangUp()
            await other.call.hangUp()
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }
    }
}

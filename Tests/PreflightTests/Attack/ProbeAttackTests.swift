import Foundation
import NIOCore
import PreflightCore
import PreflightEdge
import PreflightTesting
import Testing

extension AttackTests {
    /// Attacks on the last-mile probe against a real `preflight serve`: the downlink probe is the
    /// one place the edge sends more than it receives, so it must go only to the verified client,
    /// only while that client is heard from, and never past its byte budget (docs/security.md).
    @Suite(.loadsTheMachine) struct Probe {
        /// A probe session opened over signaling, with its media address and credentials.
        struct OpenProbe {
            let call: AttackCall
            let callSid: String
            let clientPassword: String
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
            return OpenProbe(call: call, callSid: answer.callSid, clientPassword: clientPassword)
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

        /// What a probe's client answers the edge's consent requests with.
        static func answerer(_ probe: OpenProbe) -> ConsentAnswerer {
            ConsentAnswerer(clientUfrag: probe.call.clientUfrag, clientPassword: probe.clientPassword, edgeUfrag: probe.call.edgeUfrag)
        }

        /// Probe packets (payload type 127) among `datagrams`.
        static func probePackets(_ datagrams: [[UInt8]]) -> [[UInt8]] {
            datagrams.filter { $0.count >= 12 && $0[0] >> 6 == 2 && $0[1] & 0x7F == ProbePacket.payloadType }
        }

        /// Binding requests (the edge's consent requests) among `datagrams`.
        static func consentRequests(_ datagrams: [[UInt8]]) -> [[UInt8]] {
            datagrams.filter { (try? STUNMessage(decoding: $0))?.type == .bindingRequest }
        }

        /// The review's attack: a check from a victim's address (here sent from the victim's own
        /// socket, which is what a spoofed source looks like to the edge) with a probe session's
        /// valid credentials, then trains at the ceiling, five sessions in a row. The victim never
        /// answers a consent request, so it gets the check's answer and at most one consent request
        /// per session: nothing of any train.
        @Test func aCheckFromAVictimsAddressReflectsNoTrain() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let victim = try await UDPProbe.bind(host: "127.0.0.2")
            var spoofedBytes = 0
            for round in 1...5 {
                let probe = try await Self.open(on: edge, up: nil, down: 5_000_000)
                let check = try probe.call.check(nominate: true)
                try await victim.send(check, to: probe.call.media)
                spoofedBytes += check.count
                // Trains at the ceiling until the edge has given up on this session's consent.
                let before = try await edge.status()["probePacketsWithheld"] ?? 0
                let train = Task {
                    while !Task.isCancelled {
                        try? await probe.call.signaling.send(.probeTrain(.init(rate: 10_000_000, size: 1200, duration: 1000)))
                        try? await Task.sleep(for: .milliseconds(200))
                    }
                }
                let after = try await edge.awaitStatus(upTo: .seconds(15)) { ($0["probePacketsWithheld"] ?? 0) > before }
                train.cancel()
                #expect((after["probePacketsWithheld"] ?? 0) > before, "round \(round): the edge never gave the train up")
                await probe.call.hangUp()
            }
            let tally = victim.counts
            let trains = Self.probePackets(tally.received)
            let requests = Self.consentRequests(tally.received)
            print("reflection: 5 probes, \(spoofedBytes) B of checks from the victim's address → the victim got \(tally.received.count) datagrams, \(tally.receivedBytes) B (\(trains.count) probe packets, \(requests.count) consent requests)")
            #expect(trains.count == 0, "\(trains.count) probe packets reached the victim")
            #expect(requests.count <= 5, "\(requests.count) consent requests for 5 sessions")
            // The checks' answers and one request a session, each no bigger than the check plus the allowance.
            #expect(tally.received.count <= 10)
            #expect(tally.receivedBytes <= 2 * (spoofedBytes + 5 * SendBudget.allowancePerDatagram))
            await victim.close()
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }

        /// A hostile client may claim the ICE credentials of another agent it knows (a browser it is
        /// in a call with): that agent answers the edge's consent request, signed, but without the
        /// CONSENT-NONCE only a Preflight client echoes, and so gets no train.
        @Test func anAgentWithTheClaimedCredentialsButNotTheNonceGetsNoTrain() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let probe = try await Self.open(on: edge, up: nil, down: 1_000_000)
            var answerer = Self.answerer(probe)
            answerer.echoesNonce = false
            let victim = try await UDPProbe.bind(host: "127.0.0.4", answering: { [answerer] in answerer.answer($0) })
            try await victim.send(try probe.call.check(nominate: true), to: probe.call.media)
            let trains = Task {
                while !Task.isCancelled {
                    try? await probe.call.signaling.send(.probeTrain(.init(rate: 2_000_000, size: 1200, duration: 1000)))
                    try? await Task.sleep(for: .milliseconds(200))
                }
            }
            defer { trains.cancel() }
            // Two answers: the edge has read the first (a second later) when the counters are read.
            await victim.awaitReceived(upTo: .seconds(30)) { _ in victim.answersSent >= 2 }
            let counters = try await edge.awaitStatus(upTo: .seconds(15)) { ($0["probePacketsWithheld"] ?? 0) >= 1 }
            trains.cancel()
            print("claimed credentials: the agent answered \(victim.answersSent) consent requests without the nonce; \(Self.probePackets(victim.received).count) probe packets reached it; consentAnswers \(counters["consentAnswers"] ?? -1)")
            #expect(victim.answersSent >= 2, "the agent was asked fewer than twice")
            #expect(Self.probePackets(victim.received).count == 0)
            #expect(counters["consentAnswers"] == 0)
            await victim.close()
            await probe.call.hangUp()
            try await edge.expectAlive()
        }

        /// The downlink goes only to the address that passed a check and answered the edge's
        /// consent request, never before, and never to another address that knows the
        /// credentials but did not check, or that merely sends media.
        @Test func downlinkGoesOnlyToTheConsentingClient() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let probe = try await Self.open(on: edge, up: nil, down: 1_000_000)
            let answerer = Self.answerer(probe)
            let client = try await UDPProbe.bind(answering: { answerer.answer($0) })
            let bystander = try await UDPProbe.bind(host: "127.0.0.3", answering: { answerer.answer($0) })
            // A train before any check: no peer, the train is dropped and nothing goes anywhere.
            try await probe.call.signaling.send(.probeTrain(.init(rate: 1_000_000, size: 1000, duration: 300)))
            try await bystander.send(try AttackCall.rtp(sequence: 1), to: probe.call.media)
            try await edge.awaitStatus(upTo: .seconds(10)) { ($0["probePacketsWithheld"] ?? 0) >= 1 }
            #expect(client.received.isEmpty && bystander.received.isEmpty)
            // The client checks, answers the consent request, and a train now reaches it, and only it.
            try await client.send(try probe.call.check(nominate: true), to: probe.call.media)
            #expect(await client.awaitReceived(upTo: .seconds(30)) { !Self.consentRequests($0).isEmpty }, "no consent request")
            try await edge.awaitStatus(upTo: .seconds(5)) { ($0["consentAnswers"] ?? 0) >= 1 }
            try await probe.call.signaling.send(.probeTrain(.init(rate: 1_000_000, size: 1000, duration: 500)))
            // 500 ms at 1 Mbit/s of 1042-byte (wire) packets: 60; pacing allows a few either way.
            #expect(await client.awaitReceived(upTo: .seconds(30)) { Self.probePackets($0).count >= 45 })
            try await bystander.send(try AttackCall.rtp(sequence: 2), to: probe.call.media)
            // Every probe packet the edge sent reached the client.
            let sentByEdge = try await edge.awaitSteady("probePacketsSent")
            #expect(await client.awaitReceived(upTo: .seconds(30)) { Self.probePackets($0).count >= sentByEdge })
            let probes = Self.probePackets(client.received)
            #expect(probes.count == sentByEdge)
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

        /// A client that stops answering consent requests is sent nothing more once its last
        /// answer is 3 s old, whatever else arrives from its address (pings, RTP, checks: all of
        /// which a spoofer could send); and what it got is within the byte budget.
        @Test func downlinkStopsWhenTheClientStopsAnswering() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let probe = try await Self.open(on: edge, up: nil, down: 100_000)
            let answerer = Self.answerer(probe)
            let answering = Shared(true)
            let client = try await UDPProbe.bind(answering: { answering.value ? answerer.answer($0) : nil })
            try await client.send(try probe.call.check(nominate: true), to: probe.call.media)
            try await edge.awaitStatus(upTo: .seconds(5)) { ($0["consentAnswers"] ?? 0) >= 1 }
            let trains = Task {
                var sequence: UInt16 = 0
                while !Task.isCancelled {
                    try? await probe.call.signaling.send(.probeTrain(.init(rate: 200_000, size: 1000, duration: 400)))
                    // What a spoofer of the client's address could send: pings and checks.
                    sequence &+= 1
                    try? await client.send(try AttackCall.rtp(sequence: sequence), to: probe.call.media)
                    if sequence % 4 == 0 { try? await client.send(try probe.call.check(nominate: true), to: probe.call.media) }
                    try? await Task.sleep(for: .milliseconds(250))
                }
            }
            defer { trains.cancel() }
            #expect(await client.awaitReceived(upTo: .seconds(30)) { Self.probePackets($0).count >= 20 }, "the train never ran")
            answering.update { $0 = false }
            let stoppedAt = ContinuousClock.now
            // The edge drops the train once consent is stale; then nothing more comes.
            let withheld = try await edge.status()["probePacketsWithheld"] ?? 0
            try await edge.awaitStatus(upTo: .seconds(10)) { ($0["probePacketsWithheld"] ?? 0) > withheld }
            let countAtStop = Self.probePackets(client.received).count
            let staleAfter = ContinuousClock.now - stoppedAt
            try await edge.awaitStatus(upTo: .seconds(10)) { ($0["probePacketsWithheld"] ?? 0) > withheld + 3 }
            let countLater = Self.probePackets(client.received).count
            trains.cancel()
            let total = Self.probePackets(client.received).count * 1042
            print("silent client: the train stopped \(staleAfter) after the last answer; \(countAtStop) probe packets then, \(countLater) later, \(total) wire bytes")
            #expect(staleAfter < .seconds(6))
            #expect(countLater == countAtStop, "\(countLater - countAtStop) probe packets after consent went stale")
            // 100 kbit/s for 12 s: the budget, in wire bytes.
            #expect(total <= 150_000)
            #expect(!probe.call.signaling.messages.contains { if case .error = $0 { true } else { false } })
            await client.close()
            await probe.call.hangUp()
            try await edge.expectAlive()
        }

        /// A client that stays present and asks for the ceiling without end gets the byte budget,
        /// 12 s of its expected bitrate, and then nothing more.
        @Test func downlinkStopsAtTheByteBudget() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let probe = try await Self.open(on: edge, up: nil, down: 100_000)
            let answerer = Self.answerer(probe)
            let client = try await UDPProbe.bind(answering: { answerer.answer($0) })
            try await client.send(try probe.call.check(nominate: true), to: probe.call.media)
            try await edge.awaitStatus(upTo: .seconds(5)) { ($0["consentAnswers"] ?? 0) >= 1 }
            let trains = Task {
                while !Task.isCancelled {
                    try? await probe.call.signaling.send(.probeTrain(.init(rate: 200_000, size: 1200, duration: 400)))
                    try? await Task.sleep(for: .milliseconds(200))
                }
            }
            defer { trains.cancel() }
            // 150,000 wire bytes at 200 kbit/s: 6 s; then every train is withheld.
            #expect(await client.awaitReceived(upTo: .seconds(30)) { Self.probePackets($0).count * 1242 > 140_000 })
            let withheld = try await edge.status()["probePacketsWithheld"] ?? 0
            try await edge.awaitStatus(upTo: .seconds(10)) { ($0["probePacketsWithheld"] ?? 0) > withheld + 3 }
            let spent = Self.probePackets(client.received).count * 1242
            try await edge.awaitStatus(upTo: .seconds(10)) { ($0["probePacketsWithheld"] ?? 0) > withheld + 6 }
            let probeBytes = Self.probePackets(client.received).count * 1242
            trains.cancel()
            print("budget: \(probeBytes) wire bytes of probe packets at 200 kbit/s asked (budget 150000)")
            #expect(probeBytes <= 150_000)
            #expect(probeBytes >= 140_000, "the budget was not spent: \(probeBytes)")
            #expect(probeBytes == spent, "sending went on after the budget")
            await client.close()
            await probe.call.hangUp()
            try await edge.expectAlive()
        }

        /// A probe's pings pass the per-source packet limit like an echo session's: a flood of
        /// them is echoed at the limit (200 a second, bursts of 100), not at the probe's byte rate.
        @Test func probePingsPassThePacketLimit() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let probe = try await Self.open(on: edge, up: 5_000_000, down: nil)
            let client = try await UDPProbe.bind()
            try await client.send(try probe.call.check(nominate: true), to: probe.call.media)
            #expect(await client.awaitReceived(1, upTo: .seconds(30)))
            let start = ContinuousClock.now
            for sequence in 0..<3000 {
                try await client.send(try AttackCall.rtp(sequence: UInt16(sequence)), to: probe.call.media)
                if sequence % 100 == 99 { try await Task.sleep(for: .milliseconds(10)) }
            }
            let sent = ContinuousClock.now - start
            try await edge.awaitStatus(upTo: .seconds(10)) {
                ($0["droppedRateLimited"] ?? 0) + ($0["droppedOverProbeRate"] ?? 0) + ($0["packetsEchoed"] ?? 0) >= 2900
            }
            let echoes = client.received.count - 1
            let seconds = Double(sent.components.seconds) + Double(sent.components.attoseconds) / 1e18
            let allowed = 100 + 200 * (seconds + 0.2)
            print("probe pings: 3000 sent in \(sent), \(echoes) echoed (the limit allows \(Int(allowed)))")
            #expect(Double(echoes) <= allowed)
            #expect(echoes >= 100)
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
            #expect(await client.awaitReceived(1, upTo: .seconds(30)))
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
            func recorded() -> [(sequence: UInt32, arrivalMicroseconds: UInt64, bytes: Int)] {
                probe.call.signaling.messages.compactMap { message -> [(sequence: UInt32, arrivalMicroseconds: UInt64, bytes: Int)]? in
                    if case .probeArrivals(let batch) = message { batch.arrivals } else { nil }
                }.flatMap { $0 }
            }
            // The records come over signaling in batches: wait for them, then give the last batch
            // a window to show whether more than the bucket allows were recorded.
            await probe.call.signaling.wait(upTo: .seconds(30)) { _ in recorded().count > 20 }
            try await Task.sleep(for: .milliseconds(400))
            let records = recorded()
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

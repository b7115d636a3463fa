import PreflightCore
import Testing

/// The ICE agent's logic on a fake clock, without sockets: gathering, pair order, nomination,
/// consent, disconnection and reconnection timing, and the ways ICE fails.
@Suite struct ICEAgentSansIOTests {
    static let twoHosts: [ICEAgent.HostInterface] = [
        .init(address: "10.0.0.1", socket: .ipv4, networkType: "Ethernet"),
        .init(address: "10.0.1.1", socket: .ipv4, networkType: "Wifi"),
    ]

    @Test func hostGatheringCompletesAtOnceWithPrioritiesInInterfaceOrder() throws {
        var harness = ICEAgentHarness()
        harness.gather(hosts: Self.twoHosts)
        let complete = try #require(harness.firstEvent { if case .gatheringComplete = $0 { true } else { false } })
        guard case .gatheringComplete(let parameters, let stats) = complete.event else { return }
        let candidates = parameters.candidates
        #expect(parameters.ufrag == "ufrag" && parameters.pwd == "password-0123456789ab")
        #expect(stats.map(\.ip) == candidates.map(\.address))
        #expect(complete.time == 0)
        #expect(candidates.map(\.address) == ["10.0.0.1", "10.0.1.1"])
        #expect(candidates.allSatisfy { $0.type == .host && $0.port == 5000 && $0.component == 1 })
        #expect(candidates[0].priority > candidates[1].priority)
        #expect(harness.agent.candidateStats.map(\.networkCost) == [0, 10])
        #expect(harness.timelineNames == [
            "ice-gathering-state:new", "ice-connection-state:new", "ice-gathering-state:gathering",
            "ice-candidate:ice-candidate", "ice-candidate:ice-candidate", "ice-gathering-state:complete",
        ])
    }

    @Test func theRelayPolicyOffersNoHostCandidates() {
        var harness = ICEAgentHarness(configuration: ICEAgent.Configuration(transportPolicy: .relay))
        harness.gather(hosts: Self.twoHosts, servers: [ICEServer(urls: ["stun:198.18.0.50:3478"])])
        #expect(harness.agent.localCandidates.isEmpty)
        #expect(harness.transmitted.isEmpty, "a STUN server is not asked under the relay policy")
        #expect(harness.agent.isGatheringComplete)
    }

    @Test func stunGatheringRetransmitsAt250MillisecondsDoublingThenGivesUp() {
        var harness = ICEAgentHarness(configuration: ICEAgent.Configuration(gatheringTimeout: .seconds(30)))
        harness.gather(servers: [ICEServer(urls: ["stun:198.18.0.50:3478"])])
        harness.run(until: 12)
        let times = harness.transmitted.map(\.time)
        #expect(times.count == 7)
        // Each retransmission is due its interval after the one before (the fake clock ticks every 10 ms).
        let intervals = zip(times, times.dropFirst()).map { $1 - $0 }
        for (interval, want) in zip(intervals, [0.25, 0.5, 1, 2, 2, 2]) {
            #expect(interval > want - 1e-6 && interval < want + 0.011, "retransmitted after \(interval) s, due after \(want) s")
        }
        let failure = harness.agent.candidateErrors.first
        #expect(failure?.errorCode == 701)
        #expect(failure?.errorText == "no answer to 7 Binding requests")
        let complete = harness.firstEvent { if case .gatheringComplete = $0 { true } else { false } }
        let last = times.last ?? 0
        #expect(complete.map { $0.time > last + 2 - 1e-6 && $0.time < last + 2.011 } == true, "gave up at \(complete.map(\.time) ?? -1)")
    }

    @Test func theGatheringTimeoutOffersWhatWasFound() {
        var harness = ICEAgentHarness(configuration: ICEAgent.Configuration(gatheringTimeout: .seconds(2)))
        harness.gather(servers: [ICEServer(urls: ["stun:198.18.0.50:3478"])])
        harness.run(until: 3)
        let complete = harness.firstEvent { if case .gatheringComplete = $0 { true } else { false } }
        #expect(complete.map { abs($0.time - 2) < 0.011 } == true)
        #expect(harness.agent.candidateErrors.first?.errorText.hasPrefix("no candidate within the gathering timeout") == true)
        #expect(harness.agent.localCandidates.count == 1)
    }

    @Test func aSTUNAnswerAddsAServerReflexiveCandidate() throws {
        var harness = ICEAgentHarness()
        let server = TransportAddress(ipv4: 198, 18, 0, 50, port: 3478)
        harness.gather(servers: [ICEServer(urls: ["stun:198.18.0.50:3478"])])
        let request = try STUNMessage(decoding: try #require(harness.transmitted.first?.bytes))
        #expect(harness.transmitted.first?.transport == .udp(.ipv4, to: server))
        let mapped = TransportAddress(ipv4: 203, 0, 113, 5, port: 6000)
        let response = STUNMessage(type: .bindingSuccess, transactionID: request.transactionID, attributes: [.xorMappedAddress(mapped)])
        #expect(harness.deliver(try response.encoded(fingerprint: true), from: server) == .consumed)
        let reflexive = try #require(harness.agent.localCandidates.first { $0.type == .serverReflexive })
        #expect(reflexive.address == "203.0.113.5" && reflexive.port == 6000)
        #expect(reflexive.relatedAddress == "10.0.0.1" && reflexive.relatedPort == 5000)
        #expect(harness.agent.isGatheringComplete)
    }

    @Test func checksStartFromTheBestPairAndTheBestValidPairIsNominated() throws {
        var harness = ICEAgentHarness()
        harness.gather(hosts: Self.twoHosts)
        try harness.connect()
        harness.run(until: 2)
        let checks = harness.checks
        let first = try #require(checks.first)
        // The check's PRIORITY carries its local candidate's local preference: the first interface's.
        #expect(first.message.priority.map { $0 >> 8 & 0xFFFF } == 65535)
        #expect(first.message.iceControlling == harness.agent.tieBreaker)
        #expect(first.message.username == "edgeufrag:ufrag")
        let nomination = try #require(checks.first { $0.message.useCandidate })
        // The best pair validated first: nominated in the next pacing slot (Ta = 50 ms), without
        // the delay that lets better pairs validate.
        #expect(nomination.time <= 0.05 + 0.011)
        let connected = try #require(harness.firstEvent { if case .connected = $0 { true } else { false } })
        guard case .connected(let pair, let at) = connected.event else { return }
        #expect(at == nomination.time)
        #expect(pair.localCandidate.ip == "10.0.0.1")
        #expect(pair.remoteCandidate.ip == ICEAgentHarness.remoteHost.host)
        #expect(harness.agent.mediaRoute == ICEAgent.Route(transport: .udp(.ipv4, to: ICEAgentHarness.remoteHost)))
        #expect(harness.agent.pairRecords.contains { $0.nominated && $0.state == "succeeded" })
    }

    @Test func onlyMediaOverTheSelectedPairIsDelivered() throws {
        var harness = ICEAgentHarness()
        harness.gather()
        let rtp: [UInt8] = [0x80, 0x00, 0x00, 0x01] + [UInt8](repeating: 0, count: 8)
        #expect(harness.deliver(rtp) == .consumed, "no media before a pair is selected")
        try harness.connect()
        harness.run(until: 1)
        #expect(harness.deliver(rtp) == .media)
        #expect(harness.deliver(rtp, from: TransportAddress(ipv4: 198, 18, 0, 66, port: 7000)) == .consumed)
        harness.agent.close(now: harness.now)
        #expect(harness.deliver(rtp) == .consumed, "nothing after close")
        #expect(harness.agent.mediaRoute == nil)
    }

    @Test func silenceDisconnectsAfterTheDisconnectTimeoutAndAnAnswerReconnects() throws {
        var harness = ICEAgentHarness()
        harness.gather()
        try harness.connect()
        harness.run(until: 5)
        harness.answering = false
        let lastAnswer = harness.transmitted.last?.time ?? 0
        harness.run(until: 12)
        let disconnected = try #require(harness.firstEvent { if case .disconnected = $0 { true } else { false } })
        // 2.5 s after the last thing heard (a consent answer), exactly: the deadline was armed for it.
        #expect(abs(disconnected.time - (lastAnswer + 2.5)) < 1e-9)
        // While disconnected, consent checks every 0.5 s (0.4–0.6 s).
        let selectedTransport = ICEAgent.Transport.udp(.ipv4, to: ICEAgentHarness.remoteHost)
        let later = harness.checks.filter { $0.time > disconnected.time + 1.7 && $0.transport == selectedTransport }
        #expect(later.count >= 2)
        let consentTimes = harness.checks.filter { $0.time > disconnected.time + 1.7 }.map(\.time)
        for (a, b) in zip(consentTimes, consentTimes.dropFirst()) where b - a > 0.3 { #expect(b - a <= 0.61) }
        harness.answering = true
        harness.run(until: 14)
        let reconnected = try #require(harness.firstEvent { if case .reconnected = $0 { true } else { false } })
        #expect(reconnected.time < 12 + 0.6 + 0.6)
        #expect(harness.agent.disconnectedSince == nil)
        #expect(harness.timelineNames.suffix(2) == ["ice-connection-state:connected", "ice-candidate:selected-ice-candidate-pair"])
    }

    static let rtp: [UInt8] = [0x80, 0x00, 0x00, 0x01] + [UInt8](repeating: 0, count: 8)

    /// Connected; media over the selected pair last arrived at 5, and the peer answers no more.
    static func lastMediaAt5() throws -> ICEAgentHarness {
        var harness = ICEAgentHarness()
        harness.gather()
        try harness.connect()
        harness.run(until: 5)
        harness.answering = false
        #expect(harness.deliver(rtp) == .media)
        return harness
    }

    /// A driver that polls the disconnect timeout a second late (its loop stalled) may not have
    /// read what arrived meanwhile: the agent waits 0.25 s for it before it judges the silence.
    @Test func aLatePollJudgesTheSilenceOnlyAfterWhatArrivedIsRead() throws {
        var harness = try Self.lastMediaAt5()
        // The stall: the deadline (5 + 2.5) is polled at 8.5.
        harness.now = 8.5
        harness.poll()
        #expect(harness.firstEvent { if case .disconnected = $0 { true } else { false } } == nil)
        // The datagram the stall held is read within the grace: connected, nothing judged.
        harness.now = 8.51
        #expect(harness.deliver(Self.rtp) == .media)
        harness.run(until: 10.5)
        #expect(harness.firstEvent { if case .disconnected = $0 { true } else { false } } == nil)
        // On time, silence disconnects at its deadline exactly (8.51 + 2.5).
        harness.run(until: 11.5)
        let onTime = try #require(harness.firstEvent { if case .disconnected = $0 { true } else { false } })
        #expect(abs(onTime.time - 11.01) < 1e-9)
    }

    /// A late poll after which nothing arrives disconnects when the grace ends.
    @Test func aLatePollWithNothingReadDisconnectsWhenTheGraceEnds() throws {
        var harness = try Self.lastMediaAt5()
        harness.now = 9
        harness.poll()
        harness.run(until: 10)
        let disconnected = try #require(harness.firstEvent { if case .disconnected = $0 { true } else { false } })
        #expect(abs(disconnected.time - 9.25) < 1e-9)
    }

    @Test func consentExpiryFailsICEAfterTheConsentTimeout() throws {
        var harness = ICEAgentHarness(configuration: ICEAgent.Configuration(consentTimeout: .seconds(5)))
        harness.gather()
        try harness.connect()
        harness.run(until: 3)
        harness.answering = false
        let lastAnswer = harness.transmitted.last?.time ?? 0
        harness.run(until: 12)
        let failed = try #require(harness.firstEvent { if case .failed = $0 { true } else { false } })
        guard case .failed(let error) = failed.event else { return }
        #expect(abs(failed.time - (lastAnswer + 5)) < 1e-9)
        #expect(error.code == .mediaConnectionFailed)
        #expect(error.message.contains("consent expired"))
        #expect(harness.agent.phase == .failed)
        #expect(harness.timelineNames.last == "ice-connection-state:failed")
        let count = harness.transmitted.count
        harness.run(until: 20)
        #expect(harness.transmitted.count == count, "a failed agent sends nothing")
    }

    @Test func whenEveryPairFailsItsChecksICEFails() throws {
        var harness = ICEAgentHarness(configuration: ICEAgent.Configuration(checkTimeout: .seconds(60)))
        harness.answering = false
        harness.gather()
        try harness.connect()
        harness.run(until: 10)
        let times = harness.checks.map(\.time)
        #expect(times.count == 7, "Rc = 7 transmissions")
        // 250 ms doubling up to 1.6 s between transmissions, and 1.6 s for the last answer.
        let intervals = zip(times, times.dropFirst()).map { $1 - $0 }
        for (interval, want) in zip(intervals, [0.25, 0.5, 1, 1.6, 1.6, 1.6]) {
            #expect(interval > want - 1e-6 && interval < want + 0.011, "retransmitted after \(interval) s, due after \(want) s")
        }
        let failed = try #require(harness.firstEvent { if case .failed = $0 { true } else { false } })
        guard case .failed(let error) = failed.event else { return }
        #expect(error.message.hasPrefix("ICE: every candidate pair failed its connectivity checks"))
        #expect(failed.time > (times.last ?? 0) + 1.6 - 1e-6 && failed.time < (times.last ?? 0) + 1.611)
    }

    @Test func theCheckTimeoutFailsICEWithNoSelectedPair() throws {
        var harness = ICEAgentHarness(configuration: ICEAgent.Configuration(checkTimeout: .seconds(2)))
        harness.answering = false
        harness.gather()
        try harness.connect()
        harness.run(until: 3)
        let failed = try #require(harness.firstEvent { if case .failed = $0 { true } else { false } })
        guard case .failed(let error) = failed.event else { return }
        #expect(abs(failed.time - 2) < 0.011)
        #expect(error.message.contains("no candidate pair was selected within the ICE timeout of 2.0 seconds"))
    }

    @Test func anErrorResponseFailsTheOnlyPairAtOnce() throws {
        var harness = ICEAgentHarness()
        harness.answering = false
        harness.gather()
        try harness.connect()
        let request = try #require(harness.checks.first?.message)
        let refusal = STUNMessage(
            type: .bindingError, transactionID: request.transactionID, attributes: [.errorCode(STUNErrorCode(code: 401, reason: "Unauthorized"))])
        harness.deliver(try refusal.encoded(fingerprint: true))
        let failed = try #require(harness.firstEvent { if case .failed = $0 { true } else { false } })
        guard case .failed(let error) = failed.event else { return }
        #expect(failed.time == 0)
        #expect(error.message.contains("refused the connectivity checks"))
    }

    @Test func aResponseWithoutTheRightIntegrityIsIgnored() throws {
        var harness = ICEAgentHarness()
        harness.answering = false
        harness.gather()
        try harness.connect()
        let request = try #require(harness.checks.first?.message)
        let forged = STUNMessage(type: .bindingSuccess, transactionID: request.transactionID, attributes: [.xorMappedAddress(ICEAgentHarness.local)])
        harness.deliver(try forged.encoded(integrityKey: STUNIntegrityKey(Array("wrong-password".utf8)), fingerprint: true))
        harness.run(until: 1)
        #expect(harness.firstEvent { if case .connected = $0 { true } else { false } } == nil)
        #expect(harness.agent.pairRecords.allSatisfy { $0.responsesReceived == 0 })
    }

    @Test func twoAgentsSideBySideKeepToTheirOwnChecks() throws {
        var publish = ICEAgentHarness(seed: 1)
        var subscribe = ICEAgentHarness(seed: 2)
        subscribe.answering = false
        publish.gather()
        subscribe.gather()
        try publish.connect()
        try subscribe.connect()
        #expect(publish.agent.tieBreaker != subscribe.agent.tieBreaker)
        // The subscriber gets the publisher's answers: none is its own.
        let request = try #require(publish.checks.first?.message)
        let response = STUNMessage(type: .bindingSuccess, transactionID: request.transactionID, attributes: [.xorMappedAddress(ICEAgentHarness.local)])
        subscribe.deliver(try response.encoded(integrityKey: STUNIntegrityKey(Array(subscribe.remotePassword.utf8)), fingerprint: true))
        publish.run(until: 1)
        subscribe.run(until: 1)
        #expect(publish.firstEvent { if case .connected = $0 { true } else { false } } != nil)
        #expect(subscribe.firstEvent { if case .connected = $0 { true } else { false } } == nil)
        subscribe.answering = true
        subscribe.run(until: 2)
        #expect(subscribe.firstEvent { if case .connected = $0 { true } else { false } } != nil)
    }

    @Test(arguments: [1, 2])
    func theComponentIsInCandidatesChecksAndPriorities(component: Int) throws {
        var harness = ICEAgentHarness(configuration: ICEAgent.Configuration(component: component))
        harness.gather()
        let candidate = try #require(harness.agent.localCandidates.first)
        #expect(candidate.component == component)
        #expect(Int(candidate.priority & 0xFF) == 256 - component)
        try harness.connect()
        #expect(harness.checks.first?.message.priority.map { Int($0 & 0xFF) } == 256 - component)
    }

    @Test func aRelayedRouteWrapsForTheRelayAndADirectOneDoesNot() throws {
        let peer = TransportAddress(ipv4: 198, 18, 0, 9, port: 7000)
        let payload: [UInt8] = [0x80, 0, 0, 1]
        #expect(ICEAgent.Route(transport: .udp(.ipv4, to: peer)).frame(payload) == payload)
        let channel = try #require(ICEAgent.Route(transport: .stream(.init(index: 0)), peer: peer, channel: 0x4001, isStream: true).frame(payload))
        #expect(Array(channel.prefix(4)) == [0x40, 0x01, 0x00, 0x04])
        let indication = try STUNMessage(decoding: try #require(ICEAgent.Route(transport: .udp(.ipv4, to: peer), peer: peer).frame(payload)))
        #expect(indication.xorPeerAddress == peer)
        #expect(indication.data.map(Array.init) == payload)
    }
}

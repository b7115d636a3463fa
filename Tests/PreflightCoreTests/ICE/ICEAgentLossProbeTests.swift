import PreflightCore
import Testing

/// Loss probes (``ICEAgent/startLossProbes(count:interval:now:)``) on the fake clock: Binding
/// requests on the selected pair, each sent once, whose answers decide their fates.
@Suite struct ICEAgentLossProbeTests {
    static let password = "edge-password-0123456789"

    /// A connected agent whose consent checks are far apart, so every request after the start is a probe.
    static func connected() throws -> ICEAgentHarness {
        var harness = ICEAgentHarness(configuration: ICEAgent.Configuration(consentInterval: .seconds(100)))
        harness.gather()
        try harness.connect()
        harness.run(until: 0.5)
        #expect(harness.agent.phase == .connected)
        return harness
    }

    /// A connected agent whose peer answers nothing, sending `count` probes 20 ms apart, run for
    /// `duration` seconds from their start.
    static func probingUnanswered(_ count: Int, for duration: Double) throws -> (harness: ICEAgentHarness, start: Double) {
        var harness = try connected()
        harness.answering = false
        let start = harness.now
        harness.agent.startLossProbes(count: count, interval: 0.02, now: start)
        harness.collect()
        harness.run(until: start + duration)
        return (harness, start)
    }

    /// The requests sent from `time` on.
    static func probes(_ harness: ICEAgentHarness, since time: Double) -> [(time: Double, message: STUNMessage, transport: ICEAgent.Transport)] {
        harness.checks.filter { $0.time >= time }
    }

    /// The peer's answer to `request`: a success signed with its password, or an error.
    static func answer(_ request: STUNMessage, error: Bool = false, password: String = Self.password) throws -> [UInt8] {
        if error {
            return try STUNMessage(
                type: .bindingError, transactionID: request.transactionID,
                attributes: [.errorCode(STUNErrorCode(code: 401, reason: "Unauthorized"))]
            ).encoded(fingerprint: true)
        }
        return try STUNMessage(type: .bindingSuccess, transactionID: request.transactionID, attributes: [.xorMappedAddress(ICEAgentHarness.local)])
            .encoded(integrityKey: STUNIntegrityKey(Array(password.utf8)), fingerprint: true)
    }

    @Test func probesGoOnceEachOnTheSelectedPairAtTheirIntervalAndTheirAnswersDecideThem() throws {
        var harness = try Self.connected()
        let start = harness.now
        let pollsBefore = harness.polls
        harness.agent.startLossProbes(count: 50, interval: 0.02, now: start)
        harness.collect()
        harness.answerChecks(from: 0)
        harness.run(until: start + 3)
        let probes = Self.probes(harness, since: start)
        #expect(probes.count == 50)
        for (index, probe) in probes.enumerated() {
            #expect(abs(probe.time - (start + 0.02 * Double(index))) < 1e-6)
            #expect(probe.transport == .udp(.ipv4, to: ICEAgentHarness.remoteHost))
            #expect(!probe.message.attributes.contains(.useCandidate))
            #expect(probe.message.username == "edgeufrag:ufrag")
        }
        #expect(Set(probes.map(\.message.transactionID)).count == 50)
        // One wake-up a probe (49 after the first, sent at the start), nothing more.
        #expect(harness.polls - pollsBefore == 49)
        let fates = harness.agent.lossProbeFates
        // The last answer (probe 49, at 0.98 s) decides the probes sent 0.5 s or more before it.
        #expect(fates.sent == 50 && fates.decided == 25 && fates.lost == 0)
    }

    @Test func unansweredProbesAreLostAndForgedOrMisroutedAnswersDoNotCount() throws {
        let probing = try Self.probingUnanswered(60, for: 1.5)
        var harness = probing.harness
        let start = probing.start
        let probes = Self.probes(harness, since: start)
        try #require(probes.count == 60)
        for (index, probe) in probes.enumerated() {
            switch index {
            case 5:
                // A forged answer, and a true one from another address: neither counts.
                harness.deliver(try Self.answer(probe.message, password: "not-the-password"))
                harness.deliver(try Self.answer(probe.message), from: TransportAddress(ipv4: 198, 18, 0, 66, port: 7000))
            case 6:
                // On the other socket (IPv6): not the way the probe went.
                harness.deliver(try Self.answer(probe.message), on: .ipv6)
            case 20:
                // An error answer: the path carried the probe and its answer.
                harness.deliver(try Self.answer(probe.message, error: true))
            default:
                harness.deliver(try Self.answer(probe.message))
            }
        }
        let fates = harness.agent.lossProbeFates
        #expect(fates.decided == 35)
        #expect(fates.lost == 2 && fates.lossRuns == 1)
    }

    @Test func losingTheSelectedPairStopsProbingAndForgetsWhatWaits() throws {
        // Nothing comes back: disconnected after 2.5 s of silence; probing stops there.
        let probing = try Self.probingUnanswered(500, for: 5)
        var harness = probing.harness
        let start = probing.start
        let disconnected = try #require(harness.firstEvent { if case .disconnected = $0 { true } else { false } })
        let probes = Self.probes(harness, since: start).filter { !$0.message.attributes.contains(.useCandidate) }
        let late = probes.filter { $0.time > disconnected.time + 1e-9 && $0.message.username == "edgeufrag:ufrag" }
        // What follows the disconnection are the reconnect's checks, paced by the check list, not probes every 20 ms.
        #expect(late.count < 20)
        for probe in probes where probe.time < disconnected.time {
            harness.deliver(try Self.answer(probe.message))
        }
        #expect(harness.agent.lossProbeFates.decided == 0)
        #expect(harness.agent.lossProbeFates.sent > 100)
    }

    @Test func nothingIsProbedBeforeAPairIsSelectedAndTheCountIsBounded() throws {
        var harness = ICEAgentHarness(configuration: ICEAgent.Configuration(consentInterval: .seconds(100)))
        harness.gather()
        harness.agent.startLossProbes(count: 10, interval: 0.02, now: 0)
        try harness.connect()
        harness.run(until: 1)
        #expect(harness.agent.lossProbeFates.sent == 0)
        harness.agent.startLossProbes(count: 100_000, interval: 0, now: harness.now)
        harness.collect()
        // 500 probes 10 ms apart take 5 s (and the silence after them would disconnect at 7.5 s).
        harness.run(until: harness.now + 6)
        #expect(harness.agent.lossProbeFates.sent == ICEAgent.maximumLossProbes)
        let probes = Self.probes(harness, since: 1).filter { !$0.message.attributes.contains(.useCandidate) }
        let gaps = zip(probes.dropFirst(), probes).map { $0.time - $1.time }
        #expect(probes.count == ICEAgent.maximumLossProbes)
        #expect(gaps.allSatisfy { $0 >= ICEAgent.shortestLossProbeInterval - 1e-9 })
    }
}

import PreflightCore
import Testing

/// Networks coming and going during a run, on a fake clock: a more preferred network takes the
/// media once its pair validates (make before break), a less preferred one does not, the
/// selected network going away reconnects on what is left at once, and a run left without a
/// network waits for one until consent expires.
@Suite struct ICEAgentNetworkChangeTests {
    static let wifiSocket = ICEAgent.Socket(id: 2, family: .ipv4)
    static let wifiAddress = TransportAddress(ipv4: 10, 0, 2, 1, port: 6000)
    static let wifi = ICEAgent.HostInterface(address: "10.0.2.1", socket: wifiSocket, networkType: "Wifi")
    static let cellular = ICEAgent.HostInterface(address: "10.0.0.1", socket: .ipv4, networkType: "Cellular")

    /// An agent connected over cellular (its host on the IPv4 socket), at t = 2.
    static func connectedOnCellular() throws -> ICEAgentHarness {
        var harness = ICEAgentHarness()
        harness.gather(hosts: [cellular])
        try harness.connect()
        harness.run(until: 2)
        #expect(harness.firstEvent { if case .connected = $0 { true } else { false } } != nil)
        return harness
    }

    /// Wi-Fi appears at t = 2.
    static func addWifi(_ harness: inout ICEAgentHarness) -> [ICECandidate] {
        harness.socketAddresses[wifiSocket] = wifiAddress
        let before = harness.transmitted.count
        let added = harness.agent.addHosts([wifi], sockets: [wifiSocket: wifiAddress], now: harness.now)
        harness.collect()
        harness.answerChecks(from: before)
        return added
    }

    func pairChanges(_ harness: ICEAgentHarness) -> [(time: Double, ip: String)] {
        harness.events.compactMap { if case .pairChanged(let pair, let at) = $0.event { (at, pair.localCandidate.ip) } else { nil } }
    }

    @Test func aMorePreferredNetworkTakesTheMediaWithoutALoss() throws {
        var harness = try Self.connectedOnCellular()
        let cellularRoute = harness.agent.mediaRoute
        let added = Self.addWifi(&harness)
        #expect(added.map(\.address) == ["10.0.2.1"] && added.first?.port == 6000)
        let cellularPriority = try #require(harness.agent.localCandidates.first?.priority)
        #expect(try #require(added.first?.priority) > cellularPriority, "Wi-Fi's host candidate outranks cellular's")
        // Media keeps its route while the new pair is checked.
        #expect(harness.agent.mediaRoute == cellularRoute)
        harness.run(until: 3)
        let changes = pairChanges(harness)
        #expect(changes.map(\.ip) == ["10.0.2.1"])
        // Checked at once and nominated in the next pacing slot: within 0.1 s of the network.
        #expect((changes.first?.time ?? 99) - 2 <= 0.1 + 1e-9, "switched at \(changes.first?.time ?? -1)")
        #expect(harness.agent.mediaRoute == ICEAgent.Route(transport: .udp(Self.wifiSocket, to: ICEAgentHarness.remoteHost)))
        #expect(!harness.events.contains { if case .disconnected = $0.event { true } else { false } }, "nothing was lost")
        // Media arrives on the new socket now, not on the old one.
        let rtp: [UInt8] = [0x80, 0x00, 0x00, 0x01] + [UInt8](repeating: 0, count: 8)
        #expect(harness.deliver(rtp, on: Self.wifiSocket) == .media)
        #expect(harness.deliver(rtp, on: .ipv4) == .consumed)
        harness.run(until: 10)
        #expect(pairChanges(harness).count == 1, "consent on the new pair changes nothing")
    }

    /// A network that appears before the first nomination and whose checks go unanswered delays
    /// nothing beyond the nomination delay: the pair that did validate is nominated.
    @Test func aNetworkThatAppearsWhileCheckingAndNeverAnswersDelaysNothing() throws {
        var harness = ICEAgentHarness()
        harness.gather(hosts: [Self.cellular])
        try harness.connect()
        // Wi-Fi's socket gets no answers (the harness answers only the sockets it knows).
        let added = harness.agent.addHosts([Self.wifi], sockets: [Self.wifiSocket: Self.wifiAddress], now: harness.now)
        harness.collect()
        #expect(added.count == 1)
        harness.run(until: 3)
        let connected = try #require(harness.firstEvent { if case .connected = $0 { true } else { false } })
        guard case .connected(let pair, let at) = connected.event else { return }
        #expect(pair.localCandidate.ip == "10.0.0.1")
        // Nominated once the better (Wi-Fi) pair had its nomination delay (0.5 s) to validate.
        #expect(at >= 0.5 - 1e-9 && at <= 0.6 + 1e-9, "connected at \(at)")
        #expect(pairChanges(harness).isEmpty)
    }

    /// A network's address can come a moment before its route: the first checks on it are
    /// refused (nothing leaves the host) and the driver binds the socket again. Its checks in
    /// flight then go again at once, the same transactions, not at their 250 ms timers.
    @Test func aCheckTheSystemRefusedGoesAgainWhenItsSocketIsBoundAgain() throws {
        func onWifi(_ harness: ICEAgentHarness) -> [(time: Double, message: STUNMessage, transport: ICEAgent.Transport)] {
            harness.checks.filter { if case .udp(let socket, _) = $0.transport { socket == Self.wifiSocket } else { false } }
        }
        var refused = try Self.connectedOnCellular()
        refused.answering = false
        _ = refused.agent.addHosts([Self.wifi], sockets: [Self.wifiSocket: Self.wifiAddress], now: refused.now)
        refused.collect()
        var untouched = refused
        refused.run(until: 2.1)
        let first = onWifi(refused)
        #expect(!first.isEmpty && first.allSatisfy { $0.time >= 2 && $0.time <= 2.1 })
        refused.now = 2.102
        refused.agent.socketRebound(Self.wifiSocket, now: refused.now)
        #expect((refused.agent.nextDeadline ?? 99) <= 2.102)
        refused.poll()
        let again = onWifi(refused).dropFirst(first.count)
        #expect(again.count == first.count && again.allSatisfy { $0.time == 2.102 })
        #expect(again.map(\.message.transactionID) == first.map(\.message.transactionID), "the same transactions")
        // Without the rebind they wait for their timers.
        untouched.run(until: 2.2)
        #expect(onWifi(untouched).count == first.count)
        // Another socket's rebind moves nothing on Wi-Fi.
        var other = untouched
        other.agent.socketRebound(.ipv6, now: other.now)
        other.poll()
        #expect(onWifi(other).count == first.count)
    }

    @Test func aLessPreferredNetworkDoesNotTakeTheMedia() throws {
        var harness = ICEAgentHarness()
        harness.socketAddresses[Self.wifiSocket] = Self.wifiAddress
        harness.gather(hosts: [ICEAgent.HostInterface(address: "10.0.0.1", socket: .ipv4, networkType: "Wifi")])
        try harness.connect()
        harness.run(until: 2)
        let route = harness.agent.mediaRoute
        let cellularSocket = ICEAgent.Socket(id: 3, family: .ipv4)
        let cellularAddress = TransportAddress(ipv4: 10, 0, 3, 1, port: 6100)
        harness.socketAddresses[cellularSocket] = cellularAddress
        let before = harness.transmitted.count
        let added = harness.agent.addHosts(
            [ICEAgent.HostInterface(address: "10.0.3.1", socket: cellularSocket, networkType: "Cellular")],
            sockets: [cellularSocket: cellularAddress], now: harness.now)
        harness.collect()
        harness.answerChecks(from: before)
        harness.run(until: 5)
        #expect(added.count == 1)
        #expect(pairChanges(harness).isEmpty)
        #expect(harness.agent.mediaRoute == route)
        #expect(harness.agent.pairRecords.contains { $0.localCandidate.ip == "10.0.3.1" && $0.state == "succeeded" }, "checked, ready")
    }

    @Test func theSelectedNetworkGoingAwayReconnectsOnTheOtherAtOnce() throws {
        var harness = try Self.connectedOnCellular()
        _ = Self.addWifi(&harness)
        harness.run(until: 3)
        #expect(pairChanges(harness).map(\.ip) == ["10.0.2.1"])
        harness.agent.removeNetwork(sockets: [Self.wifiSocket], addresses: ["10.0.2.1"], now: harness.now)
        harness.collect()
        harness.answerChecks(from: 0)
        harness.run(until: 5)
        let disconnected = try #require(harness.firstEvent { if case .disconnected = $0 { true } else { false } })
        #expect(disconnected.time == 3, "disconnected when the network went, not after the media timeout")
        let reconnected = try #require(harness.firstEvent { if case .reconnected = $0 { true } else { false } })
        guard case .reconnected(let pair, let at) = reconnected.event else { return }
        #expect(pair.localCandidate.ip == "10.0.0.1")
        #expect(at - 3 <= 0.1 + 1e-9, "reconnected at \(at)")
        #expect(harness.agent.mediaRoute == ICEAgent.Route(transport: .udp(.ipv4, to: ICEAgentHarness.remoteHost)))
        // Nothing is sent from the gone socket after it went.
        #expect(!harness.transmitted.contains { $0.time > 3 && $0.transport == .udp(Self.wifiSocket, to: ICEAgentHarness.remoteHost) })
        #expect(harness.agent.pairRecords.contains { $0.localCandidate.ip == "10.0.2.1" && $0.state == "failed" })
    }

    @Test func withoutANetworkTheRunWaitsForOneUntilConsentExpires() throws {
        // The only network comes back after 5 s: reconnected at once.
        var harness = try Self.connectedOnCellular()
        harness.agent.removeNetwork(sockets: [], addresses: ["10.0.0.1"], now: harness.now)
        harness.collect()
        harness.run(until: 7)
        #expect(harness.firstEvent { if case .disconnected = $0 { true } else { false } }?.time == 2)
        #expect(harness.agent.phase == .connected && harness.agent.disconnectedSince == 2)
        _ = Self.addWifi(&harness)
        harness.run(until: 8)
        let reconnected = try #require(harness.firstEvent { if case .reconnected = $0 { true } else { false } })
        #expect(reconnected.time - 7 <= 0.1 + 1e-9)

        // It never comes back: ICE fails with the consent timeout (30 s after the last answer).
        var alone = try Self.connectedOnCellular()
        alone.agent.removeNetwork(sockets: [], addresses: ["10.0.0.1"], now: alone.now)
        alone.collect()
        alone.run(until: 40)
        let failed = try #require(alone.firstEvent { if case .failed = $0 { true } else { false } })
        #expect(failed.time > 30 && failed.time <= 32.1, "failed at \(failed.time)")
        #expect(alone.agent.phase == .failed)
    }

    /// A network that appears asks the run's STUN and UDP TURN servers again from its own
    /// socket: its server-reflexive candidate is based on its host, its relayed one is paired
    /// and checked through the relay at once, both are announced; when it goes, the relay's
    /// pairs go with it and nothing more is sent to the servers from its socket.
    @Test func aNewNetworkGathersItsReflexiveAndRelayedCandidates() throws {
        let stun = TransportAddress(ipv4: 198, 18, 0, 50, port: 3478)
        let turn = TransportAddress(ipv4: 198, 18, 0, 60, port: 3478)
        var harness = ICEAgentHarness()
        harness.gather(hosts: [Self.cellular], servers: [
            ICEServer(urls: ["stun:198.18.0.50:3478"]), ICEServer(urls: ["turn:198.18.0.60:3478"], username: "user", credential: "pass"),
        ])
        try harness.connect()
        harness.run(until: 2)
        let before = harness.transmitted.count
        _ = Self.addWifi(&harness)
        let sent = harness.transmitted[before...]
        let binding = try #require(sent.first { $0.transport == .udp(Self.wifiSocket, to: stun) }, "no Binding request from Wi-Fi")
        let allocate = try #require(sent.first { $0.transport == .udp(Self.wifiSocket, to: turn) }, "no Allocate from Wi-Fi")

        // The STUN server answers on Wi-Fi's socket: a reflexive candidate based on Wi-Fi's host.
        let mapped = TransportAddress(ipv4: 203, 0, 113, 7, port: 6100)
        let request = try STUNMessage(decoding: binding.bytes)
        let answer = STUNMessage(type: .bindingSuccess, transactionID: request.transactionID, attributes: [.xorMappedAddress(mapped)])
        #expect(harness.deliver(try answer.encoded(fingerprint: true), from: stun, on: Self.wifiSocket) == .consumed)
        // The TURN server challenges, then allocates.
        harness.deliver(try FakeTURNServer.error(to: allocate.bytes, code: 401, nonce: "n1").encoded(fingerprint: true), from: turn, on: Self.wifiSocket)
        let second = try #require(harness.transmitted.last { $0.transport == .udp(Self.wifiSocket, to: turn) })
        let allocated = try FakeTURNServer.success(
            to: second.bytes, [.xorRelayedAddress(FakeTURNServer.relayed), .xorMappedAddress(mapped), .lifetime(600)])
        harness.deliver(try allocated.encoded(integrityKey: try FakeTURNServer.credentials.key(), fingerprint: true), from: turn, on: Self.wifiSocket)

        let gathered = harness.events.compactMap { if case .candidateGathered(let candidate) = $0.event { candidate } else { nil } }
        #expect(gathered.map(\.type) == [.serverReflexive, .relay], "\(gathered)")
        #expect(gathered.first?.address == "203.0.113.7" && gathered.first?.relatedAddress == "10.0.2.1")
        #expect(gathered.last?.address == FakeTURNServer.relayed.host && gathered.last?.relatedAddress == "203.0.113.7")
        #expect(harness.agent.pairRecords.contains { $0.localCandidate.candidateType == .relay }, "the relay is paired")
        let afterAllocation = harness.transmitted.count
        harness.run(until: 2.5)
        #expect(harness.transmitted[afterAllocation...].contains { $0.transport == .udp(Self.wifiSocket, to: turn) }, "checks go through the relay")

        // Wi-Fi goes: its relay's pairs fail, nothing more leaves by its socket.
        harness.agent.removeNetwork(sockets: [Self.wifiSocket], addresses: ["10.0.2.1"], now: harness.now)
        harness.collect()
        let gone = harness.now
        harness.run(until: 40)
        #expect(!harness.transmitted.contains { $0.time > gone && $0.transport == .udp(Self.wifiSocket, to: turn) })
        #expect(harness.agent.pairRecords.filter { $0.localCandidate.candidateType == .relay }.allSatisfy { $0.state == "failed" })
    }
}

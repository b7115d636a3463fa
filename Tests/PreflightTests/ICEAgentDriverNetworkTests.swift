import Logging
import NIOCore
import PreflightCore
import PreflightEdge
@testable import PreflightNIO
import PreflightTesting
import Synchronization
import Testing

/// The ICE driver's network changes on real sockets against an in-process edge: a network that
/// appears gets a socket of its own and, more preferred, takes the media (the edge follows the
/// nomination and echoes there); when it goes, the agent reconnects on the socket left. The
/// "networks" are two addresses of the loopback interface typed two ways: the lab's namespaces do it with real
/// interfaces (docs/lab.md).
@Suite(.realTime, .timeLimit(.minutes(10))) struct ICEAgentDriverNetworkTests {
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// What the driver reported, and the media that came back.
    final class Seen: Sendable {
        let events = Mutex<[ICEAgent.Event]>([])
        let media = Mutex<[Datagram]>([])

        func first<T>(_ pick: (ICEAgent.Event) -> T?) -> T? {
            let all = events.withLock { $0 }
            return all.lazy.compactMap(pick).first
        }
        var names: [String] {
            events.withLock {
                $0.compactMap {
                    switch $0 {
                    case .connected: "connected"
                    case .pairChanged: "pair-changed"
                    case .disconnected: "disconnected"
                    case .reconnected: "reconnected"
                    case .failed: "failed"
                    default: nil
                    }
                }
            }
        }
    }

    @Test func aNewNetworkTakesTheMediaAndItsLossFallsBack() async throws {
        try await LocalEdge.withRunning { edge in
            let seen = Seen()
            let ice = try await ICEAgentDriver.bind(
                configuration: ICEAgentDriverConfiguration(ipv4Address: "127.0.0.1", bindsIPv6: false, offersLoopback: true),
                logger: Self.logger,
                events: { event in if case .agent(let event) = event { seen.events.withLock { $0.append(event) } } })
            ice.receiveMedia { datagram in seen.media.withLock { $0.append(datagram) } }
            let signaling = SignalingClient(
                configuration: SignalingClientConfiguration(url: edge.signalingURL, accessToken: try await edge.token()), logger: Self.logger)
            let tasks = [Task { await signaling.run() }, Task { await ice.run() }]
            defer { for task in tasks { task.cancel() } }
            _ = try await signaling.connect()
            ice.gather(servers: [])
            let answer = try await signaling.invite(.init(ice: ice.withAgent { $0.localParameters }, codecs: ["PCMU"]))
            try ice.connect(remote: answer.ice)
            #expect(await eventually { seen.names.contains("connected") }, "\(seen.names)")
            let first = try #require(seen.first { if case .connected(let pair, _) = $0 { pair } else { nil } })
            #expect(first.localCandidate.networkType == "Loopback")
            let session = MediaSession(
                configuration: MediaSessionConfiguration(cname: "network-test"), origin: ice.origin, wallClockOrigin: 0,
                eventLoop: ice.eventLoop, transmit: { ice.sendMedia($0) })

            // "Ethernet" appears: a socket of its own, a higher priority, the media moves.
            // A pretend interface's name: the driver's own loopback socket (interface lo) stays.
            let ethernet = HostNetwork(interfaceName: "wired-test", interfaceIndex: 1, type: .ethernet, addresses: ["127.0.0.2"])
            let added = await ice.addNetwork(ethernet)
            #expect(added.count == 1 && added.first?.port != UInt16(first.localCandidate.port))
            #expect(await eventually { seen.names.contains("pair-changed") }, "\(seen.names)")
            let moved = try #require(seen.first { if case .pairChanged(let pair, _) = $0 { pair } else { nil } })
            #expect(moved.localCandidate.networkType == "Ethernet" && moved.localCandidate.port == Int(added.first?.port ?? 0))
            // The edge followed the nomination: its echo of a report comes back to the new socket.
            session.sendReport(at: .now)
            #expect(await eventually { !seen.media.withLock(\.isEmpty) }, "no echo on the new network's socket")

            // "Ethernet" goes: disconnected at once, reconnected on the loopback socket.
            await ice.removeNetwork(ethernet)
            #expect(await eventually { seen.names.contains("reconnected") }, "\(seen.names)")
            #expect(seen.names == ["connected", "pair-changed", "disconnected", "reconnected"])
            let restored = try #require(seen.first { if case .reconnected(let pair, _) = $0 { pair } else { nil } })
            #expect(restored.localCandidate.port == first.localCandidate.port)
            let echoes = seen.media.withLock(\.count)
            session.sendReport(at: .now)
            #expect(await eventually { seen.media.withLock(\.count) > echoes }, "the echo comes back on the socket left")
            await ice.close()
            await signaling.close()
        }
    }

    /// The monitor starts after the driver bound its sockets: its first view catches up with
    /// what changed in between (``ICEAgentDriver/reconcile(with:)``). A network the driver has
    /// no socket for is added, one it is already on changes nothing, one that went is removed.
    @Test func theMonitorsFirstViewCatchesUpWithTheDriver() async throws {
        let ice = try await ICEAgentDriver.bind(
            configuration: ICEAgentDriverConfiguration(ipv4Address: "127.0.0.1", bindsIPv6: false, offersLoopback: true),
            logger: Self.logger, events: { _ in })
        let task = Task { await ice.run() }
        defer { task.cancel() }
        ice.gather(servers: [])
        func hostAddresses() -> Set<String> {
            Set(ice.records().candidates.filter { !$0.isRemote && $0.candidateType == .host }.map(\.ip))
        }
        #expect(await eventually { hostAddresses() == ["127.0.0.1"] }, "\(hostAddresses())")
        // The driver's own loopback network, as the kernel names it.
        let loopback = try #require(HostInterfaces.offered(loopback: true, includesIPv6: false).networks.first)
        let wired = HostNetwork(interfaceName: "wired-test", interfaceIndex: 1, type: .ethernet, addresses: ["127.0.0.2"])

        #expect(await ice.reconcile(with: NetworkSnapshot(networks: [loopback])).isEmpty, "nothing changed")
        let added = await ice.reconcile(with: NetworkSnapshot(networks: [loopback, wired]))
        #expect(added.map(\.address) == ["127.0.0.2"])
        #expect(await ice.reconcile(with: NetworkSnapshot(networks: [loopback, wired])).isEmpty, "already on it")
        // Loopback went between the bind and the monitor: its socket closes, the other stays.
        _ = await ice.reconcile(with: NetworkSnapshot(networks: [wired]))
        let again = await ice.reconcile(with: NetworkSnapshot(networks: [loopback, wired]))
        #expect(again.map(\.address) == ["127.0.0.1"], "loopback's socket was closed, so it is bound again")
        await ice.close()
    }
}

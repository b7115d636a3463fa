import Logging
import PreflightCore
import PreflightEdge
import PreflightNIO
import PreflightTesting
import Synchronization
import Testing

/// The ICE driver on real sockets against an in-process edge: its events come outside the
/// agent's lock and in order, and media goes to the media receiver on the event loop.
@Suite(.realTime, .timeLimit(.minutes(10))) struct ICEAgentDriverTests {
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// What an event handler saw: each event's name, and the agent's phase read from inside it.
    final class Seen: Sendable {
        let driver = Mutex<ICEAgentDriver?>(nil)
        let entries = Mutex<[(event: String, phase: ICEAgent.Phase?)]>([])
    }

    @Test func aHandlerReadsTheAgentAndEventsComeInTheAgentsOrder() async throws {
        try await LocalEdge.withRunning { edge in
            let seen = Seen()
            let (connected, connectedContinuation) = AsyncStream<Void>.makeStream()
            let (media, mediaContinuation) = AsyncStream<Datagram>.makeStream()
            let ice = try await ICEAgentDriver.bind(
                configuration: ICEAgentDriverConfiguration(ipv4Address: "127.0.0.1", bindsIPv6: false, offersLoopback: true),
                logger: Self.logger,
                events: { event in
                    // Inside the handler: reading the agent would deadlock if events came under its lock.
                    let phase = seen.driver.withLock { $0 }?.withAgent { $0.phase }
                    let name: String
                    switch event {
                    case .agent(.gatheringComplete): name = "gathered"
                    case .agent(.connected): name = "connected"
                    case .agent(.timeline(let entry)): name = "\(entry.group):\(entry.name)"
                    case .agent: name = "other"
                    case .mediaStarted: name = "media-started"
                    case .media: name = "media"
                    }
                    seen.entries.withLock { $0.append((name, phase)) }
                    if name == "connected" || name == "media-started" { connectedContinuation.yield() }
                })
            seen.driver.withLock { $0 = ice }
            ice.receiveMedia { mediaContinuation.yield($0) }
            let signaling = SignalingClient(
                configuration: SignalingClientConfiguration(url: edge.signalingURL, accessToken: try await edge.token()), logger: Self.logger)
            let tasks = [Task { await signaling.run() }, Task { await ice.run() }]
            _ = try await signaling.connect()
            ice.gather(servers: [])
            let answer = try await signaling.invite(.init(ice: ice.withAgent { $0.localParameters }, codecs: ["PCMU"]))
            try ice.connect(remote: answer.ice)
            for await _ in connected { break }
            // The echo answers an RTCP report: media arrives on the receiver, not among the events.
            let session = MediaSession(
                configuration: MediaSessionConfiguration(cname: "driver-test"), origin: ice.origin, wallClockOrigin: 0,
                eventLoop: ice.eventLoop, transmit: { ice.sendMedia($0) })
            session.sendReport(at: .now)
            var received = 0
            for await _ in media {
                received += 1
                if received == 1 { break }
            }
            for await _ in connected { break }  // media-started
            await ice.close()
            await signaling.close()
            for task in tasks { task.cancel() }
            let entries = seen.entries.withLock { $0 }
            let names = entries.map(\.event)
            #expect(received == 1)
            #expect(!names.contains("media"))
            // Each handler read the agent; the order is the agent's.
            #expect(entries.allSatisfy { $0.phase != nil })
            let gathered = try #require(names.firstIndex(of: "gathered"))
            let checking = try #require(names.firstIndex(of: "ice-connection-state:checking"))
            let connectedIndex = try #require(names.firstIndex(of: "connected"))
            #expect(gathered < checking && checking < connectedIndex)
            #expect(entries[connectedIndex].phase == .connected)
            let mediaStarted = try #require(names.firstIndex(of: "media-started"))
            #expect(connectedIndex < mediaStarted)
        }
    }
}

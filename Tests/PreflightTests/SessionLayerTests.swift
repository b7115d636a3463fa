import Logging
import NIOCore
import NIOPosix
import PreflightCore
import PreflightEdge
import PreflightNIO
import PreflightTesting
import Synchronization
import Testing

/// The client session layer on real sockets against an in-process edge: the signaling client's
/// requests, errors and timeouts, and two complete sessions (signaling, ICE, media) side by side.
@Suite(.realTime, .timeLimit(.minutes(10))) struct SessionLayerTests {
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test func signingInReturnsTheWelcomeAndAnInviteItsAnswer() async throws {
        try await LocalEdge.withRunning { edge in
            let client = SignalingClient(
                configuration: SignalingClientConfiguration(url: edge.signalingURL, accessToken: try await edge.token()), logger: Self.logger)
            let run = Task { await client.run() }
            let welcome = try await client.connect()
            #expect(welcome.edge == "local")
            let (ufrag, pwd) = ICEParameters.randomCredentials()
            let candidate = ICECandidate(foundation: "1", priority: 2_130_706_431, address: "127.0.0.1", port: 9, type: .host)
            let answer = try await client.invite(.init(ice: ICEParameters(ufrag: ufrag, pwd: pwd, candidates: [candidate]), codecs: ["PCMU"]))
            #expect(answer.callSid.hasPrefix("CA"))
            #expect(answer.codec == "PCMU")
            #expect(!answer.ice.candidates.isEmpty)
            await client.close()
            await run.value
        }
    }

    @Test func aRefusedTokenFailsConnectWithTheEdgesCode() async throws {
        try await LocalEdge.withRunning { edge in
            let client = SignalingClient(
                configuration: SignalingClientConfiguration(url: edge.signalingURL, accessToken: "not.a.token"), logger: Self.logger)
            let run = Task { await client.run() }
            let error = await #expect(throws: PreflightError.self) { try await client.connect() }
            #expect(error.map { $0.code.rawValue / 100 } == 201, "a token error (201xx): \(String(describing: error))")
            await client.close()
            await run.value
        }
    }

    @Test func anEdgeThatNeverAnswersTimesOutWithSignalingTimeout() async throws {
        // A TCP listener that accepts and stays silent: the WebSocket never opens.
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(server.localAddress?.port)
        let client = SignalingClient(
            configuration: SignalingClientConfiguration(url: "ws://127.0.0.1:\(port)/signaling", accessToken: "t", timeout: .milliseconds(300)),
            logger: Self.logger)
        let run = Task { await client.run() }
        let start = ContinuousClock.now
        let error = await #expect(throws: PreflightError.self) { try await client.connect() }
        #expect(error?.code == .signalingTimeout)
        #expect(ContinuousClock.now - start < .seconds(5))
        run.cancel()
        await client.close()
        try await server.close()
    }

    @Test func twoSessionsSideBySideEachGetTheirOwnEchoes() async throws {
        try await LocalEdge.withRunning { edge in
            async let first = Self.echoSession(edge: edge, identity: "publisher")
            async let second = Self.echoSession(edge: edge, identity: "subscriber")
            let (a, b) = try await (first, second)
            for figures in [a, b] {
                #expect(figures.roundTrips.count > 20, "round trips: \(figures.roundTrips.count)")
                #expect(figures.downlink.expected > 20, "echoes received: \(figures.downlink.expected)")
                // Its own echoes, each once: as many came back as it sent, none lost.
                #expect(figures.packetsReceived == figures.packetsSent, "sent \(figures.packetsSent), received \(figures.packetsReceived)")
                #expect(figures.downlink.lost == 0)
            }
        }
    }

    /// One session on the session layer alone: sign in, gather, invite, connect, send the test
    /// tone until more than 20 echoes came back, then wait for the echoes of the rest; returns
    /// what its media session measured.
    static func echoSession(edge: LocalEdge, identity: String) async throws -> CallMeter {
        let (inputs, continuation) = AsyncStream<ICEAgentDriver.Event>.makeStream()
        let ice = try await ICEAgentDriver.bind(
            configuration: ICEAgentDriverConfiguration(ipv4Address: "127.0.0.1", bindsIPv6: false, offersLoopback: true),
            logger: logger, events: { continuation.yield($0) })
        let signaling = SignalingClient(
            configuration: SignalingClientConfiguration(url: edge.signalingURL, accessToken: try await edge.token(identity: identity)),
            logger: logger)
        let media = MediaSession(
            configuration: MediaSessionConfiguration(cname: identity), origin: ice.origin, wallClockOrigin: 0,
            transmit: { ice.sendMedia($0) })
        let tasks = [Task { await signaling.run() }, Task { await ice.run() }]
        defer { for task in tasks { task.cancel() } }
        _ = try await signaling.connect()
        ice.gather(servers: [])
        let answer = try await signaling.invite(.init(ice: ice.withAgent { $0.localParameters }, codecs: ["PCMU"]))
        try ice.connect(remote: answer.ice)
        var sending: Task<Void, Never>?
        for await event in inputs {
            switch event {
            case .agent(.connected):
                let sender = Task { await media.send(AudioTestSource()) }
                sending = sender
                Task {
                    _ = await eventually { media.meter.roundTrips.count > 20 }
                    media.stopSending()
                    await sender.value
                    _ = await eventually { media.meter.packetsReceived >= media.meter.packetsSent }
                    continuation.finish()
                }
            case .agent(.failed(let error)):
                throw error
            case .media(let datagram):
                media.receive(datagram)
            case .agent, .mediaStarted:
                continue
            }
        }
        await sending?.value
        await ice.close()
        await signaling.close()
        return media.meter
    }
}

import Foundation
import Logging
import PreflightCore
import PreflightEdge
import PreflightNIO
import PreflightTesting
import Synchronization
import Testing

/// A signaling connection lost in the middle of a call: the client resumes the session on a new
/// connection while the call's media goes on; without resumption the session ends.
@Suite(.realTime, .timeLimit(.minutes(10))) struct SessionResumeTests {
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Collects a signaling client's events for the test to inspect.
    final class EventLog: Sendable {
        let events = Mutex<[String]>([])
        func append(_ event: SignalingClient.Event) {
            let name = switch event {
            case .message(let message): "message:\(message.type)"
            case .reconnecting(let error): "reconnecting:\(error.code.rawValue)"
            case .reconnected: "reconnected"
            case .closed(let error): "closed:\(error.map { "\($0.code.rawValue)" } ?? "nil")"
            }
            events.withLock { $0.append(name) }
        }
        var names: [String] { events.withLock { $0 } }
    }

    @Test func aCallSurvivesALostSignalingConnection() async throws {
        try await LocalEdge.withRunning { edge in
            let relay = try await TCPRelay.start(targetPort: try #require(URL(string: edge.signalingURL)?.port))
            let (signaling, log, runs) = Self.client(edge: edge, relay: relay, token: try await edge.token(), resumes: true)
            defer { for task in runs { task.cancel() } }
            _ = try await signaling.connect()
            let ice = try await Self.connectedCall(signaling)
            let echoes = Mutex(0)
            let media = MediaSession(configuration: MediaSessionConfiguration(cname: "resume"), origin: ice.driver.origin, wallClockOrigin: 0) {
                ice.driver.sendMedia($0)
            }
            let sending = Task { await media.send(AudioTestSource()) }
            let receiving = Task {
                for await event in ice.events {
                    if case .media(let datagram) = event {
                        media.receive(datagram)
                        echoes.withLock { $0 += 1 }
                    }
                }
            }
            #expect(await eventually { echoes.withLock { $0 } > 5 }, "no echoes before the cut")
            await relay.cut()
            let echoesAtCut = echoes.withLock { $0 }
            #expect(await eventually { log.names.contains("reconnected") }, "events: \(log.names)")
            // The media path never depended on the WebSocket: echoes kept coming.
            #expect(
                await eventually { echoes.withLock { $0 } > echoesAtCut + 5 },
                "echoes: \(echoesAtCut) at the cut, \(echoes.withLock { $0 }) now")
            #expect(log.names.first { $0.hasPrefix("reconnecting") } == "reconnecting:\(PreflightError.Code.signalingDisconnected.rawValue)")
            // Lost again: the client resumes with the token the first `resumed` brought.
            await relay.cut()
            #expect(await eventually { log.names.filter { $0 == "reconnected" }.count == 2 }, "events: \(log.names)")
            #expect(edge.server.sessionCount == 1)
            #expect(edge.server.media.sessionCount == 1)
            // The resumed session ends normally.
            if let callSid = ice.callSid { await signaling.hangup(callSid: callSid, reason: "done") }
            #expect(await eventually { edge.server.sessionCount == 0 && edge.server.media.sessionCount == 0 })
            media.stopSending()
            sending.cancel()
            await ice.driver.close()
            ice.finish()
            receiving.cancel()
            await signaling.close()
            await relay.stop()
        }
    }

    @Test func withoutResumptionALostConnectionEndsTheSession() async throws {
        var configuration = LocalEdge.configuration()
        configuration.sessionResumeWindow = .zero
        try await LocalEdge.withRunning(configuration: configuration) { edge in
            let relay = try await TCPRelay.start(targetPort: try #require(URL(string: edge.signalingURL)?.port))
            let (signaling, log, runs) = Self.client(edge: edge, relay: relay, token: try await edge.token(), resumes: true)
            defer { for task in runs { task.cancel() } }
            let welcome = try await signaling.connect()
            #expect(welcome.resumeToken == nil)
            await relay.cut()
            #expect(await eventually { log.names.contains { $0.hasPrefix("closed") } }, "events: \(log.names)")
            #expect(log.names == ["closed:\(PreflightError.Code.signalingDisconnected.rawValue)"])
            #expect(await eventually { edge.server.sessionCount == 0 })
            await relay.stop()
        }
    }

    /// The client is closed while it resumes on a connection that never answers: `run()`
    /// returns at once, not at the end of the resume window (a failed call's signaling lived
    /// on for 31 s, its resume handshake waiting on a connection already closed).
    @Test func closingWhileResumingEndsTheRunAtOnce() async throws {
        try await LocalEdge.withRunning { edge in
            let relay = try await TCPRelay.start(targetPort: try #require(URL(string: edge.signalingURL)?.port))
            let signaling = SignalingClient(
                configuration: SignalingClientConfiguration(
                    url: "ws://127.0.0.1:\(relay.port)/signaling", accessToken: try await edge.token(), resumesSession: true,
                    resumeTimeout: .seconds(600)),
                logger: Self.logger)
            let log = EventLog()
            let ended = Atomic<Bool>(false)
            let runs = [
                Task {
                    await signaling.run()
                    ended.store(true, ordering: .releasing)
                },
                Task { for await event in signaling.events { log.append(event) } },
            ]
            defer { for task in runs { task.cancel() } }
            _ = try await signaling.connect()
            relay.hold()
            await relay.cut()
            // The resume's connection is accepted and hangs.
            #expect(await eventually { relay.held.load(ordering: .acquiring) > 0 }, "events: \(log.names)")
            await signaling.close()
            #expect(await eventually(within: .seconds(120)) { ended.load(ordering: .acquiring) }, "events: \(log.names)")
            #expect(log.names.last?.hasPrefix("closed") == true, "events: \(log.names)")
            await relay.stop()
        }
    }

    // MARK: Helpers

    static func client(
        edge: LocalEdge, relay: TCPRelay, token: String, resumes: Bool
    ) -> (SignalingClient, EventLog, [Task<Void, Never>]) {
        let signaling = SignalingClient(
            configuration: SignalingClientConfiguration(
                url: "ws://127.0.0.1:\(relay.port)/signaling", accessToken: token, resumesSession: resumes, resumeTimeout: .seconds(5)),
            logger: logger)
        let log = EventLog()
        let runs = [
            Task { await signaling.run() },
            Task { for await event in signaling.events { log.append(event) } },
        ]
        return (signaling, log, runs)
    }

    struct Call {
        let driver: ICEAgentDriver
        let events: AsyncStream<ICEAgentDriver.Event>
        let finish: @Sendable () -> Void
        let callSid: String?
    }

    /// Invites, and connects ICE on loopback; returns once a pair is selected.
    static func connectedCall(_ signaling: SignalingClient) async throws -> Call {
        let (events, continuation) = AsyncStream<ICEAgentDriver.Event>.makeStream()
        let (connected, connectedContinuation) = AsyncStream<Void>.makeStream()
        let driver = try await ICEAgentDriver.bind(
            configuration: ICEAgentDriverConfiguration(ipv4Address: "127.0.0.1", bindsIPv6: false, offersLoopback: true),
            logger: logger,
            events: { event in
                if case .agent(.connected) = event { connectedContinuation.yield() }
                continuation.yield(event)
            })
        Task { await driver.run() }
        driver.gather(servers: [])
        let answer = try await signaling.invite(.init(ice: driver.withAgent { $0.localParameters }, codecs: ["PCMU"]))
        try driver.connect(remote: answer.ice)
        for await _ in connected { break }
        return Call(driver: driver, events: events, finish: { continuation.finish() }, callSid: answer.callSid)
    }
}

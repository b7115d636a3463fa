import Foundation
import Logging
import NIOCore
import NIOPosix
import Preflight
import PreflightCore
import PreflightEdge
import PreflightNIO
import PreflightTesting
import Synchronization
import Testing
import WSClient

/// The edge's signaling protocol and its defences, through real WebSocket and UDP sockets.
@Suite(.loadsTheMachine, .serialized) struct EdgeRobustnessTests {
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Sends raw text frames on a fresh connection and returns the edge's replies until it closes.
    static func exchange(_ url: String, frames: [WebSocketOutboundWriter.OutboundFrame]) async throws -> [SignalingMessage] {
        let replies = Mutex<[SignalingMessage]>([])
        let client = WebSocketClient(url: url, logger: logger) { inbound, outbound, _ in
            for frame in frames { try await outbound.write(frame) }
            var iterator = inbound.makeAsyncIterator()
            while let message = try await iterator.nextMessage(maxSize: 1 << 20) {
                if case .text(let text) = message, let decoded = try? SignalingMessage(jsonText: text) {
                    replies.withLock { $0.append(decoded) }
                }
            }
        }
        _ = try? await client.run()
        return replies.withLock { $0 }
    }

    static func errorCode(_ messages: [SignalingMessage]) -> Int? {
        for message in messages { if case .error(let info) = message { return info.code } }
        return nil
    }

    static func invite(codecs: [String] = ["PCMU"]) -> SignalingMessage {
        .invite(.init(ice: ICEParameters(ufrag: "abcd", pwd: "0123456789abcdefghijkl"), codecs: codecs))
    }

    @Test func protocolViolationsEndTheSessionWithTheirCode() async throws {
        var configuration = LocalEdge.configuration()
        // The no-hello case waits this long; a busy machine must still get its hello in before it.
        configuration.signalingTimeout = .seconds(5)
        try await LocalEdge.withRunning(configuration: configuration) { edge in
            let url = edge.signalingURL
            let token = try await edge.token()
            let noApp = try await edge.issuer.mint(identity: "x", outgoingApplicationSID: "APunknown")
            let cases: [([WebSocketOutboundWriter.OutboundFrame], PreflightError.Code)] = [
                ([.text("{not json")], .malformed),
                ([.text(#"{"type":"teleport"}"#)], .malformed),
                ([.text(#"{"type":"hello"}"#)], .malformed),
                ([.binary(ByteBuffer(bytes: [1, 2, 3]))], .malformed),
                ([.text(Self.invite().jsonText())], .malformed),  // invite before hello
                ([.text(SignalingMessage.hello(token: "a.b.c", client: nil).jsonText())], .invalidAccessToken),
                ([], .signalingTimeout),  // no hello within the edge's signaling timeout
                ([.text(SignalingMessage.hello(token: noApp, client: nil).jsonText()), .text(Self.invite().jsonText())], .callDeclined),
                ([.text(SignalingMessage.hello(token: token, client: nil).jsonText()), .text(Self.invite(codecs: ["G729"]).jsonText())], .unsupportedCodec),
            ]
            for (frames, code) in cases {
                let replies = try await Self.exchange(url, frames: frames)
                #expect(Self.errorCode(replies) == code.rawValue, "frames \(frames.count): replies \(replies)")
            }
        }
    }

    /// Holds a session open: connects and says hello with `token`, returns once welcomed.
    static func hold(_ url: String, token: String) async throws -> SignalingConnection {
        let holder = SignalingConnection(url: url, logger: logger)
        Task { await holder.run() }
        for await event in holder.events {
            switch event {
            case .connected: try await holder.send(.hello(token: token, client: nil))
            case .message(.welcome): return holder
            default: break
            }
        }
        throw PreflightError(code: .signalingDisconnected, message: "holder: no welcome")
    }

    @Test func sessionsBeyondTheLimitAreRefused() async throws {
        var configuration = LocalEdge.configuration()
        configuration.maximumSessions = 1
        try await LocalEdge.withRunning(configuration: configuration) { edge in
            // A connection that has not authenticated holds no slot: the holder still gets in.
            let idle = SignalingConnection(url: edge.signalingURL, logger: Self.logger)
            Task { await idle.run() }
            for await event in idle.events { if case .connected = event { break } }
            let holder = try await Self.hold(edge.signalingURL, token: try await edge.token(identity: "first"))
            let hello = SignalingMessage.hello(token: try await edge.token(identity: "second"), client: nil)
            let replies = try await Self.exchange(edge.signalingURL, frames: [.text(hello.jsonText())])
            #expect(Self.errorCode(replies) == PreflightError.Code.edgeAtCapacity.rawValue)
            await holder.close()
            await idle.close()
        }
    }

    /// TURN credentials handed out in `welcome` never outlive the token that earned them: a
    /// 60 s token gets credentials for 60 s although the edge's lifetime for them is an hour.
    @Test func turnCredentialsExpireNoLaterThanTheToken() async throws {
        var configuration = LocalEdge.configuration()
        configuration.iceServers = [ICEServer(urls: ["turn:127.0.0.1:3478?transport=udp"])]
        configuration.turnSecret = "turn-shared-secret"
        configuration.signalingTimeout = .seconds(1)  // the exchange ends when the edge gives up on the invite
        try await LocalEdge.withRunning(configuration: configuration) { edge in
            func expiry(lifetime: Duration) async throws -> Int64? {
                let token = try await edge.token(lifetime: lifetime)
                let replies = try await Self.exchange(edge.signalingURL, frames: [.text(SignalingMessage.hello(token: token, client: nil).jsonText())])
                for case .welcome(let welcome) in replies {
                    let username = welcome.iceServers.first { $0.urls.contains { $0.hasPrefix("turn:") } }?.username
                    return username?.split(separator: ":").first.flatMap { Int64($0) }
                }
                return nil
            }
            // Each exchange lasts until the edge gives up on the invite, so the expiry is bracketed
            // by the clock before and after its own exchange, not by one reading for both.
            func bracketed(lifetime: Duration) async throws -> (expiry: Int64, before: Int64, after: Int64) {
                let before = Int64(Date().timeIntervalSince1970.rounded(.down))
                let expiry = try #require(try await expiry(lifetime: lifetime))
                return (expiry, before, Int64(Date().timeIntervalSince1970.rounded(.up)))
            }
            let short = try await bracketed(lifetime: .seconds(60))
            #expect(short.expiry >= short.before + 59 && short.expiry <= short.after + 60, "credentials until \(short.expiry - short.before) s from the hello")
            let long = try await bracketed(lifetime: .seconds(86_000))
            #expect(long.expiry >= long.before + 3599 && long.expiry <= long.after + 3600, "credentials until \(long.expiry - long.before) s from the hello")
        }
    }

    @Test func sessionsBeyondTheIdentityAndAccountLimitsAreRefused() async throws {
        var configuration = LocalEdge.configuration()
        configuration.maximumSessionsPerIdentity = 2
        configuration.maximumSessionsPerAccount = 3
        try await LocalEdge.withRunning(configuration: configuration) { edge in
            let alice = try await edge.token(identity: "alice")
            let first = try await Self.hold(edge.signalingURL, token: alice)
            let second = try await Self.hold(edge.signalingURL, token: alice)
            let third = try await Self.exchange(edge.signalingURL, frames: [.text(SignalingMessage.hello(token: alice, client: nil).jsonText())])
            #expect(Self.errorCode(third) == PreflightError.Code.sessionLimitReached.rawValue)
            // Another identity of the account gets the account's last slot, then the account is full.
            let bob = try await Self.hold(edge.signalingURL, token: try await edge.token(identity: "bob"))
            let carol = SignalingMessage.hello(token: try await edge.token(identity: "carol"), client: nil)
            let refused = try await Self.exchange(edge.signalingURL, frames: [.text(carol.jsonText())])
            #expect(Self.errorCode(refused) == PreflightError.Code.sessionLimitReached.rawValue)
            // A slot is freed when its session ends.
            await first.close()
            #expect(await eventually { edge.server.sessionCount == 2 }, "sessions: \(edge.server.sessionCount)")
            let again = try await Self.hold(edge.signalingURL, token: alice)
            for connection in [second, bob, again] { await connection.close() }
        }
    }

    @Test func healthzSaysTheEdgeIsUpAndNothingMore() async throws {
        try await LocalEdge.withRunning { edge in
            let port = try #require(edge.addresses.http.port)
            let response = try await HTTPGet.get(host: "127.0.0.1", port: port, path: "/healthz")
            #expect(response.hasPrefix("HTTP/1.1 200"))
            #expect(response.contains(#""status":"ok""#))
            // The counters are behind `GET /status` (EdgeHTTPLimitsTests).
            #expect(!response.contains(#""edge":"local""#))
        }
    }

    /// Garbage on both of the edge's doors while a real test runs: the test completes unharmed.
    @Test func garbageDoesNotHarmARunningTest() async throws {
        try await LocalEdge.withRunning { edge in
            let test = PreflightTest.run(
                options: PreflightOptions(accessToken: try await edge.token(), edgeURL: edge.signalingURL, duration: .seconds(4)))
            let mediaAddress = edge.addresses.media
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    let socket = try await MediaSocket.bind(host: "127.0.0.1")
                    var generator = SystemRandomNumberGenerator()
                    for index in 0..<2000 {
                        let length = Int.random(in: 0...300, using: &generator)
                        var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                        // Some look like RTP, RTCP or STUN by their first byte, to reach deeper parsers.
                        if !bytes.isEmpty { bytes[0] = [0x80, 0x81, 0x00, 0x01, bytes[0]][index % 5] }
                        socket.send(bytes, to: mediaAddress)
                        if index % 100 == 0 { try await Task.sleep(for: .milliseconds(50)) }
                    }
                    await socket.close()
                }
                group.addTask {
                    for frames: [WebSocketOutboundWriter.OutboundFrame] in [
                        [.text("][")], [.text(String(repeating: "x", count: 70_000))], [.binary(ByteBuffer(bytes: [0xFF]))],
                        [.text(#"{"type":"hangup","callSid":"CAnope"}"#)],
                    ] {
                        _ = try await Self.exchange(edge.signalingURL, frames: frames)
                    }
                }
                try await group.waitForAll()
            }
            let report = try await test.result()
            #expect(report.statsSamples.count >= 3)
            #expect(report.statsSamples.last?.packetsLost == 0)
            // Every garbage datagram was dropped and counted (most by the per-source rate limit: the
            // generator sends 2000/s from one port).
            let counters = edge.server.media.counters
            #expect(counters.droppedMalformed + counters.droppedUnverified + counters.droppedRateLimited + counters.checksRefused >= 2000)
        }
    }

    @Test func recordPlaybackCompletesWithRTCPRoundTrips() async throws {
        var configuration = LocalEdge.configuration()
        configuration.recordingDuration = .seconds(2)
        configuration.playbackPause = .seconds(1)
        try await LocalEdge.withRunning(configuration: configuration) { edge in
            let test = PreflightTest.run(
                options: PreflightOptions(accessToken: try await edge.token(application: .recordPlayback), edgeURL: edge.signalingURL))
            let report = try await test.result()
            #expect(report.application == "record-playback")
            // 2 s recorded + 2 s played back + 1 s pause.
            #expect((4...7).contains(report.statsSamples.count), "\(report.statsSamples.count) samples")
            // What was recorded came back, all of it, and no more than was sent (how much a sender
            // starved of CPU got into the 2 s is not this test's business).
            let played = report.downlink?.packetsExpected ?? 0
            #expect(played > 0 && played <= report.uplink?.packetsExpected ?? 0, "played \(played) of \(String(describing: report.uplink))")
            #expect(report.downlink?.packetsLost == 0)
            #expect(report.networkStats.rtt.max > 0)  // RTT from RTCP LSR/DLSR
            #expect(report.uplink?.packetsLost == 0)
        }
    }
}

/// A minimal HTTP/1.1 GET over a NIO socket (no HTTP client package needed in the tests).
enum HTTPGet {
    static func get(host: String, port: Int, path: String) async throws -> String {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n"))
            var text = ""
            for try await buffer in inbound { text += String(buffer: buffer) }
            return text
        }
    }
}

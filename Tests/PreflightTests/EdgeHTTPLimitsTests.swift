import Foundation
import Logging
import NIOCore
import Preflight
import PreflightCore
@testable import PreflightEdge
import PreflightNIO
import PreflightTesting
import Testing

/// The edge's HTTP limits and its two status endpoints, against a real edge on loopback.
@Suite(.realTime, .serialized) struct EdgeHTTPLimitsTests {
    static func basic(_ sid: String, _ secret: String) -> String {
        "Authorization: Basic " + Data("\(sid):\(secret)".utf8).base64EncodedString()
    }

    /// Waits until the edge counts `open` HTTP connections.
    static func waitForOpenConnections(_ edge: LocalEdge, _ open: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        #expect(
            await eventually { edge.server.httpLimiter.counters.open == open }, "open: \(edge.server.httpLimiter.counters.open)",
            sourceLocation: sourceLocation)
    }

    @Test func aSlowlorisIsClosedAfterTheHeaderTimeout() async throws {
        var configuration = LocalEdge.configuration()
        configuration.httpLimits.headerTimeout = .seconds(1)
        let secret = try #require(configuration.apiKeys[LocalEdge.apiKeySID])
        try await LocalEdge.withRunning(configuration: configuration) { edge in
            let port = try #require(edge.addresses.http.port)
            // Half a request head, then a byte every 200 ms: each byte would reset a read-idle timer.
            let reply = try await RawHTTP.exchange(
                port: port, request: "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n", drip: String(repeating: "X-Slow: 1\r\n", count: 10),
                waitAtMost: .seconds(30))
            // Closed by the edge, not before its timeout (the counter below says which one), long
            // before the drip's 22 s were over.
            #expect(reply.closedByPeer, "still open after \(reply.elapsed)")
            #expect(reply.elapsed >= .milliseconds(900) && reply.elapsed < .seconds(20), "closed after \(reply.elapsed)")
            #expect(reply.text.isEmpty, "\(reply.text)")

            // A prompt request on a fresh connection is answered, and the timeout was counted.
            let status = try await RawHTTP.get(
                port: port, path: "/status", headers: [Self.basic(LocalEdge.apiKeySID, secret)])
            #expect(status.text.hasPrefix("HTTP/1.1 200"), "\(status.text)")
            #expect(status.text.contains(#""httpHeaderTimeouts":1"#), "\(status.text)")
        }
    }

    @Test func connectionsBeyondThePerAddressCapAreClosedAndHealthzStillAnswers() async throws {
        var configuration = LocalEdge.configuration()
        configuration.httpLimits.maximumConnectionsPerAddress = 3
        configuration.httpLimits.headerTimeout = .seconds(30)
        let secret = try #require(configuration.apiKeys[LocalEdge.apiKeySID])
        try await LocalEdge.withRunning(configuration: configuration) { edge in
            let port = try #require(edge.addresses.http.port)
            var holders: [any Channel] = []
            for count in 1...3 {
                holders.append(try await RawHTTP.hold(port: port))
                await Self.waitForOpenConnections(edge, count)
            }
            // The fourth from the same address is closed at once, unanswered.
            let refused = try await RawHTTP.get(port: port, path: "/healthz")
            #expect(refused.closedByPeer)
            #expect(refused.text.isEmpty, "\(refused.text)")
            #expect(refused.elapsed < .seconds(2))
            #expect(edge.server.httpLimiter.counters.refused == 1)

            #if os(Linux)
            // Another source address is not affected while the three are held.
            let other = try await RawHTTP.get(port: port, path: "/healthz", source: "127.0.0.2")
            #expect(other.text.hasPrefix("HTTP/1.1 200"), "\(other.text)")
            #endif

            // Once one holder leaves, a fresh connection from the first address is answered.
            try await holders.removeFirst().close()
            await Self.waitForOpenConnections(edge, 2)
            let fresh = try await RawHTTP.get(port: port, path: "/healthz")
            #expect(fresh.text.hasPrefix("HTTP/1.1 200"), "\(fresh.text)")
            #expect(fresh.text.hasSuffix(#"{"status":"ok"}"#), "\(fresh.text)")
            // The fresh connection is closed on the edge's side too before the third place is
            // taken again (a busy edge may see the close a moment after the client).
            await Self.waitForOpenConnections(edge, 2)
            let status = try await RawHTTP.get(port: port, path: "/status", headers: [Self.basic(LocalEdge.apiKeySID, secret)])
            #expect(status.text.contains(#""httpRefused":1"#), "\(status.text)")
            for holder in holders { try await holder.close() }
        }
    }

    @Test func aWebSocketIsNotCutByTheHTTPTimeouts() async throws {
        var configuration = LocalEdge.configuration()
        // Both under the 2 s of silence below; the header timeout not so short that a busy host's
        // own requests (the test's report upload) could not send their head in time.
        configuration.httpLimits.headerTimeout = .milliseconds(1500)
        configuration.httpLimits.idleTimeout = .milliseconds(500)
        try await LocalEdge.withRunning(configuration: configuration) { edge in
            // Signaling silent for 2 s (four idle timeouts) after the upgrade, then hello is welcomed.
            let connection = SignalingConnection(url: edge.signalingURL, logger: Logger(label: "test"))
            let token = try await edge.token()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await connection.run() }
                var welcomed = false
                for await event in connection.events {
                    switch event {
                    case .connected:
                        try await Task.sleep(for: .seconds(2))
                        try await connection.send(.hello(token: token, client: nil))
                    case .message(.welcome):
                        welcomed = true
                        await connection.close()
                    default:
                        break
                    }
                }
                #expect(welcomed)
                try await group.waitForAll()
            }
            // A whole test call, whose signaling is quiet while media flows, completes too.
            let test = PreflightTest.run(options: PreflightOptions(accessToken: try await edge.token(), edgeURL: edge.signalingURL, duration: .seconds(3)))
            let report = try await test.result()
            #expect(report.statsSamples.count >= 3)
            #expect(edge.server.httpLimiter.counters.idleTimeouts == 0)
            #expect(edge.server.httpLimiter.counters.headerTimeouts == 0)
        }
    }

    @Test func healthzSaysOnlyUpAndStatusNeedsAnAPIKey() async throws {
        let configuration = LocalEdge.configuration()
        let secret = try #require(configuration.apiKeys[LocalEdge.apiKeySID])
        try await LocalEdge.withRunning(configuration: configuration) { edge in
            let port = try #require(edge.addresses.http.port)
            let health = try await RawHTTP.get(port: port, path: "/healthz")
            #expect(health.text.hasPrefix("HTTP/1.1 200"))
            #expect(health.text.hasSuffix("\r\n\r\n" + #"{"status":"ok"}"#), "\(health.text)")
            #expect(!health.text.contains("sessions"))

            for headers in [[], [Self.basic(LocalEdge.apiKeySID, secret + "x")], [Self.basic("SKnobody", secret)], ["Authorization: Bearer \(secret)"]] {
                let refused = try await RawHTTP.get(port: port, path: "/status", headers: headers)
                #expect(refused.text.hasPrefix("HTTP/1.1 401"), "\(headers): \(refused.text)")
                #expect(refused.text.lowercased().contains("www-authenticate: basic realm=\"preflight-edge\""), "\(refused.text)")
                #expect(!refused.text.contains("sessions"))
            }
            let status = try await RawHTTP.get(port: port, path: "/status", headers: [Self.basic(LocalEdge.apiKeySID, secret)])
            #expect(status.text.hasPrefix("HTTP/1.1 200"), "\(status.text)")
            for field in [
                #""edge":"local""#, #""sessions":0"#, #""mediaSessions":0"#, #""packetsEchoed":"#, #""droppedRateLimited":"#,
                #""httpConnections":1"#, #""httpRefused":0"#, #""httpPreempted":0"#,
            ] {
                #expect(status.text.contains(field), "\(field) in \(status.text)")
            }
        }
    }

    @Test func anIPv6PrefixLengthOutsideItsRangeIsRefused() async throws {
        for length in [31, 129] {
            var configuration = LocalEdge.configuration()
            configuration.httpLimits.ipv6PrefixLength = length
            let error = await #expect(throws: PreflightError.self) {
                _ = try await EdgeServer(configuration: configuration, logger: Logger(label: "test"))
            }
            #expect(error?.message == "edge: the IPv6 prefix length must be 32 to 128, got \(length)")
        }
    }
}

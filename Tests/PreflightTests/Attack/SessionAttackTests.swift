import Foundation
import PreflightCore
import PreflightTesting
import Testing

extension AttackTests {
    /// Attacks on the edge's session accounting: connections that never authenticate, and one
    /// identity that opens session after session.
    @Suite struct Sessions {
        static let idleConnections = 300

        /// Opens `count` upgraded WebSocket connections that send nothing, 50 at a time (below the
        /// listener's accept backlog).
        static func openIdle(_ count: Int, on edge: AttackedEdge) async throws -> [RawWebSocket] {
            var sockets: [RawWebSocket] = []
            for batch in stride(from: 0, to: count, by: 50) {
                try await withThrowingTaskGroup(of: RawWebSocket.self) { group in
                    for _ in batch..<min(count, batch + 50) { group.addTask { try await edge.connect() } }
                    for try await socket in group { sockets.append(socket) }
                }
            }
            return sockets
        }

        /// With room for a single session, 300 connections that never say hello hold no slot: a real
        /// client still gets hello → welcome. The edge's RSS grows by a bounded amount per connection.
        @Test func idleConnectionsHoldNoSessionSlot() async throws {
            // The per-address connection cap (64 by default) is raised: these connections all come
            // from 127.0.0.1, and what is measured here is the session slot.
            let edge = try await AttackedEdge.start(["--max-sessions", "1", "--max-connections-per-address", "400"])
            defer { edge.stop() }
            try await edge.expectAlive()  // warms the edge up, so the first figure is not its start-up
            let before = try edge.rssKiB()
            let idle = try await Self.openIdle(Self.idleConnections, on: edge)
            try await Task.sleep(for: .milliseconds(300))
            let loaded = try edge.rssKiB()
            let client = try await edge.hello(try await edge.token(identity: "real-client"))
            #expect(client.welcomed, "the only session slot was taken by idle connections: \(client.summary)")
            #expect(idle.allSatisfy { $0.endedAt == nil && $0.frames.isEmpty }, "an idle connection was answered or closed early")
            print(
                "idle connections: edge RSS \(before) KiB with 0, \(loaded) KiB with \(idle.count) "
                    + "(\((loaded - before) / max(1, idle.count)) KiB each)")
            #expect(loaded - before < 64 << 10, "RSS grew by \(loaded - before) KiB for \(idle.count) idle connections")
            await client.close()
            for socket in idle { await socket.close() }
            try await Task.sleep(for: .milliseconds(500))  // the single slot is freed when the client's session ends
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }

        /// One address holds at most 64 connections by default: the rest are closed before the
        /// upgrade, and once one is released a new one gets in.
        @Test func oneAddressCannotHoldEveryConnection() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            var held: [RawWebSocket] = []
            var refused = 0
            for _ in 0..<80 {
                do {
                    held.append(try await edge.connect())
                } catch {
                    refused += 1
                }
            }
            print("per-address cap: \(held.count) connections held, \(refused) refused")
            #expect(held.count == 64)
            #expect(refused == 16)
            await held.removeLast().close()
            // Once the edge saw the close, a new connection gets in (until then it is refused).
            var again: RawWebSocket?
            _ = await eventually(every: .milliseconds(50)) {
                again = try? await edge.connect()
                return again != nil
            }
            let reconnected = try #require(again, "no connection got in after one was released")
            #expect(reconnected.endedAt == nil)
            await reconnected.close()
            for socket in held { await socket.close() }
            try await Task.sleep(for: .milliseconds(300))
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }

        /// With `--signaling-timeout 1`, every idle connection gets 53002 and a close frame, and the
        /// edge closes the TCP connection itself although the client never answers the closing
        /// handshake (the edge waits 2 s for that answer). Meanwhile a real client is still served.
        @Test func idleConnectionsAreClosedWithoutTheClientsCloseAnswer() async throws {
            let edge = try await AttackedEdge.start(["--signaling-timeout", "1", "--max-connections-per-address", "400"])
            defer { edge.stop() }
            let idle = try await Self.openIdle(Self.idleConnections, on: edge)
            let client = try await edge.hello(try await edge.token(identity: "real-client"))
            #expect(client.welcomed, "\(client.summary)")
            let deadline = ContinuousClock.now + .seconds(15)
            for socket in idle { _ = await socket.awaitEnd(upTo: max(Duration.zero, deadline - ContinuousClock.now)) }
            let open = idle.filter { $0.endedAt == nil }.count
            #expect(open == 0, "\(open) of \(idle.count) idle connections still open 15 s later")
            let timedOut = idle.filter { $0.errorCode == PreflightError.Code.signalingTimeout.rawValue }.count
            #expect(timedOut == idle.count, "\(timedOut) of \(idle.count) got 53002")
            let closeFrames = idle.filter { $0.closeCode != nil }.count
            #expect(closeFrames == idle.count, "\(closeFrames) of \(idle.count) got a close frame")
            let lifetimes = idle.compactMap { socket in socket.endedAt.map { ($0 - socket.connectedAt).inSeconds } }.sorted()
            if let first = lifetimes.first, let last = lifetimes.last {
                print(
                    "signaling timeout 1 s: \(idle.count) idle connections closed by the edge after "
                        + "\(first.formatted(digits: 2))–\(last.formatted(digits: 2)) s (median "
                        + "\(lifetimes[lifetimes.count / 2].formatted(digits: 2)) s)")
                // 1 s timeout + 2 s close timeout; generous for a loaded machine.
                #expect(last < 10, "the slowest close took \(last) s")
            }
            await client.close()
            for socket in idle { await socket.close() }
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }

        /// One token opens sessions until refused: the 6th gets 70104 (5 per identity by default),
        /// another identity is still welcomed, and a freed slot can be taken again.
        @Test func oneIdentityCannotHoardSessions() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let token = try await edge.token(identity: "hoarder")
            var held: [RawWebSocket] = []
            for _ in 0..<5 {
                let socket = try await edge.hello(token)
                #expect(socket.welcomed, "\(socket.summary)")
                held.append(socket)
            }
            let sixth = try await edge.hello(token)
            #expect(sixth.errorCode == PreflightError.Code.sessionLimitReached.rawValue, "\(sixth.summary)")
            #expect(!sixth.welcomed)
            #expect(await sixth.awaitEnd(upTo: .seconds(6)), "the refused connection stayed open")
            try await edge.expectAlive()
            await held[0].close()
            let sessions = try await edge.awaitStatus(upTo: .seconds(30)) { $0["sessions"] == held.count - 1 }["sessions"]
            #expect(sessions == held.count - 1, "the closed session still counts: \(String(describing: sessions))")
            let again = try await edge.hello(token)
            #expect(again.welcomed, "a freed slot was not given back: \(again.summary)")
            for socket in held + [again] { await socket.close() }
            try edge.expectSaneLog()
        }
    }
}

extension Double {
    func formatted(digits: Int) -> String {
        String(format: "%.\(digits)f", self)
    }
}

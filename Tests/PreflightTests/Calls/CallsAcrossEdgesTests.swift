import Foundation
import Preflight
import PreflightCore
import PreflightEdge
import PreflightNIO
import PreflightTesting
import Testing

/// Two `preflight serve` processes sharing a PostgreSQL database with `--route-across-edges`:
/// SDK clients registered on one edge are called from the other. Two edges, their database
/// connections and the SDK's calls load a 2-core machine: these run while no real-time test does.
@Suite(.loadsTheMachine, .serialized, .enabled(if: PostgresTestDatabase.canRun, Comment(rawValue: PostgresTestDatabase.skipReason)))
struct CallsAcrossEdgesTests {
    /// Runs `body` with two edges named europe and america on a new database.
    static func withEdges(_ body: @Sendable (EdgeProcess, EdgeProcess) async throws -> Void) async throws {
        try await withEdges { europe, america, _ in try await body(europe, america) }
    }

    /// Runs `body` with two edges named europe and america on a new database, and its name.
    static func withEdges(_ body: @Sendable (EdgeProcess, EdgeProcess, String) async throws -> Void) async throws {
        let database = try await PostgresTestDatabase.create()
        try await withBlockingCleanup({ database.drop() }) {
            func start(_ name: String) async throws -> EdgeProcess {
                try await EdgeProcess.start(
                    executable: CallHarness.executable,
                    arguments: ["--log-level", "error", "--database", database.url, "--edge-name", name, "--route-across-edges"])
            }
            let europe = try await start("europe")
            defer { europe.kill() }
            let america = try await start("america")
            defer { america.kill() }
            try await body(europe, america, database.name)
        }
    }

    /// `GET /status` of `edge`, parsed.
    static func status(_ edge: EdgeProcess) async throws -> [String: Any] {
        let basic = Data("\(LocalEdge.apiKeySID):\(edge.secret)".utf8).base64EncodedString()
        let reply = try await EdgeHTTPClient.send(
            edge: edge.signalingURL, method: "GET", path: "/status", authorization: "Basic \(basic)", timeout: .seconds(10),
            maximumLength: 1 << 20, failure: .malformed)
        return (try JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any]) ?? [:]
    }

    /// `GET path` of `edge` with its API key: the status and the body.
    static func get(_ edge: EdgeProcess, _ path: String) async throws -> (status: UInt, text: String) {
        let basic = Data("\(LocalEdge.apiKeySID):\(edge.secret)".utf8).base64EncodedString()
        let reply = try await EdgeHTTPClient.send(
            edge: edge.signalingURL, method: "GET", path: path, authorization: "Basic \(basic)", timeout: .seconds(10),
            maximumLength: 8 << 20, failure: .malformed)
        return (reply.status, String(decoding: reply.body, as: UTF8.self))
    }

    /// bob registered on `edge`, his events, once `other` can route to him.
    static func registerBob(on edge: EdgeProcess, routableFrom other: EdgeProcess) async throws -> (Registration, AsyncStream<RegistrationEvent>) {
        let bob = try await Voice.register(options: RegistrationOptions(
            accessToken: try await edge.callToken(identity: "bob"), edgeURL: edge.signalingURL))
        let invites = bob.events()
        #expect(try await waitForRegistrations(1, on: other))
        return (bob, invites)
    }

    /// Waits (at most 30 s) until `edge` knows `count` registrations of the other edges.
    static func waitForRegistrations(_ count: Int, on edge: EdgeProcess) async throws -> Bool {
        for _ in 0..<300 {
            let cluster = try await status(edge)["cluster"] as? [String: Any]
            if (cluster?["remoteRegistrations"] as? Int) == count { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    @Test func aCallerOnOneEdgeRingsAndReachesACalleeOnTheOther() async throws {
        try await Self.withEdges { europe, america in
            let (bob, invites) = try await Self.registerBob(on: america, routableFrom: europe)

            let alice = CallHarness(edge: europe)
            let caller = try await alice.connect(to: "client:bob")
            let invite = try #require(await next(invites)?.invite)
            #expect(invite.from == "client:alice")
            // The caller learns the sid from its own edge, bob from the other: either may come first.
            #expect(await caller.wait { $0.sid == invite.callSid })
            let callee = invite.accept()
            #expect(await caller.wait(for: .connected))
            #expect(await callee.wait(for: .connected))
            // Each party's audio reaches the other through both edges and the call's trunk.
            #expect(await caller.sample { $0.packetsReceived >= 25 } != nil)
            #expect(await callee.sample { $0.packetsReceived >= 25 } != nil)
            for edge in [europe, america] {
                let counters = try await Self.status(edge)
                #expect((counters["mediaSessions"] as? Int) == 2, "the party's leg and the call's trunk leg")
                let cluster = counters["cluster"] as? [String: Any]
                #expect(((cluster?["trunkPacketsSent"] as? Int) ?? 0) >= 25)
                #expect(((cluster?["trunkPacketsReceived"] as? Int) ?? 0) >= 25)
            }

            // alice hangs up on her edge; bob's call ends on his.
            caller.disconnect()
            #expect(await callee.wait(for: .disconnected))

            // One call sid on both edges: either edge's API returns both parties' events, each
            // with the edge it was posted to.
            let callSid = try #require(caller.sid)
            for edge in [europe, america] {
                var parties: Set<String> = []
                for _ in 0..<300 {
                    let (status, text) = try await Self.get(edge, "/v1/calls/\(callSid)/events")
                    if status == 200, let body = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                        let events = body["events"] as? [[String: Any]]
                    {
                        parties = Set(events.compactMap { event in (event["party"] as? String).map { "\($0)@\(event["edge"] as? String ?? "")" } })
                        if parties == ["caller@europe", "callee@america"] {
                            if edge.signalingURL == europe.signalingURL { print("cross-edge call events (\(events.count)): \(UntrustedText.excerpt(text, limit: 1500))") }
                            break
                        }
                    }
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(parties == ["caller@europe", "callee@america"])
            }
            await bob.unregister()
            #expect(try await Self.waitForRegistrations(0, on: europe))
        }
    }

    /// An edge killed mid-call: the party on the other edge gets 31005 once the dead edge's
    /// heartbeat is missed (well within the consent timeout), and its registration is gone.
    @Test func aCallWhoseOtherEdgeIsKilledEndsWith31005() async throws {
        try await Self.withEdges { europe, america in
            let (bob, invites) = try await Self.registerBob(on: america, routableFrom: europe)
            let caller = try await CallHarness(edge: europe).connect(to: "client:bob")
            let invite = try #require(await next(invites)?.invite)
            let callee = invite.accept()
            #expect(await caller.wait(for: .connected))
            #expect(await callee.wait(for: .connected))
            let killed = ContinuousClock.now
            america.kill()
            #expect(await caller.endingError()?.code == .connectionError)
            let waited = ContinuousClock.now - killed
            print("cross-edge call: the caller's error \(waited) after the other edge was killed")
            #expect(waited < .seconds(30), "within the consent timeout")
            #expect(try await Self.waitForRegistrations(0, on: europe))
            callee.disconnect()
            await bob.unregister()
        }
    }

    /// SIGTERM on an edge with a call up: the call goes on until its parties end it, a new
    /// registration there is refused with 70109, and the edge exits once the call ended.
    @Test func aDrainingEdgeKeepsItsCallUntilItEndsAndTakesNoNewSession() async throws {
        try await Self.withEdges { europe, america in
            let (bob, invites) = try await Self.registerBob(on: america, routableFrom: europe)
            let caller = try await CallHarness(edge: europe).connect(to: "client:bob")
            let callee = try #require(await next(invites)?.invite).accept()
            #expect(await caller.wait(for: .connected))
            #expect(await callee.wait(for: .connected))

            america.terminate()
            // A new session on the draining edge is refused.
            var refused: PreflightError?
            for _ in 0..<100 {
                do throws(PreflightError) {
                    let late = try await Voice.register(options: RegistrationOptions(
                        accessToken: try await america.callToken(identity: "carol"), edgeURL: america.signalingURL))
                    await late.unregister()
                    try? await Task.sleep(for: .milliseconds(50))
                } catch {
                    refused = error
                    break
                }
            }
            #expect(refused?.code == .edgeDraining)
            // The call is still up, media both ways.
            #expect(await callee.sample { $0.packetsReceived >= 25 } != nil)
            #expect(caller.state == .connected && callee.state == .connected)
            #expect(america.isRunning)
            // alice hangs up: bob's call ends normally, his registration with 70109, the edge exits.
            caller.disconnect()
            #expect(await callee.endingError() == nil)
            let ended = await first(in: invites, within: .seconds(30)) { if case .unregistered = $0 { true } else { false } }
            guard case .unregistered(let error)? = ended else {
                Issue.record("expected the registration to end, got \(String(describing: ended))")
                return
            }
            #expect(error?.code == .edgeDraining)
            #expect(await eventually(within: .seconds(30)) { !america.isRunning })
            await bob.unregister()
        }
    }

    @Test func aCallToAnIdentityRegisteredNowhereFailsWith31480() async throws {
        try await Self.withEdges { europe, _ in
            let caller = try await CallHarness(edge: europe).connect(to: "client:nobody")
            #expect(await caller.endingError()?.code == .calleeUnavailable)
        }
    }
}

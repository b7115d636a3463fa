import Foundation
import Preflight
import PreflightCore
import PreflightEdge
import PreflightNIO
import PreflightTesting
import Testing

/// Hostile messages between edges: whoever can write to the shared database notifies a real
/// `preflight serve` process directly. Garbage, late, misaddressed and forged messages are
/// refused and counted; the edge goes on serving calls across edges.
@Suite(.loadsTheMachine, .enabled(if: PostgresTestDatabase.canRun, Comment(rawValue: PostgresTestDatabase.skipReason)))
struct ClusterAttackTests {
    /// Sends `payload` on `channel` of the test database as its owner would.
    static func notify(_ database: String, channel: String, _ payload: String) async throws {
        _ = try await PostgresTestDatabase.psql("SELECT pg_notify('\(channel)', $attack$\(payload)$attack$)", database: database)
    }

    static func cluster(_ edge: EdgeProcess) async throws -> [String: Int] {
        (try await CallsAcrossEdgesTests.status(edge)["cluster"] as? [String: Int]) ?? [:]
    }

    @Test func garbageLateMisaddressedAndForgedMessagesAreRefusedAndTheEdgeGoesOn() async throws {
        try await CallsAcrossEdgesTests.withEdges { europe, america, name in
            // Both edges listen: a registration on each reaches the other.
            let bob = try await Voice.register(options: RegistrationOptions(
                accessToken: try await america.callToken(identity: "bob"), edgeURL: america.signalingURL))
            let carol = try await Voice.register(options: RegistrationOptions(
                accessToken: try await europe.callToken(identity: "carol"), edgeURL: europe.signalingURL))
            #expect(try await CallsAcrossEdgesTests.waitForRegistrations(1, on: europe))
            #expect(try await CallsAcrossEdgesTests.waitForRegistrations(1, on: america))
            let channel = PostgresClusterBus.channel(of: "america")
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let hostile = [
                "not json", "{}", "[]", #"{"kind":"teleport","from":"europe","expiresAt":\#(now + 5000)}"#,
                // Late, addressed to another edge, or from the edge itself.
                #"{"kind":"hangup","from":"europe","to":"america","expiresAt":1,"callSid":"CA1"}"#,
                #"{"kind":"hangup","from":"europe","to":"asia","expiresAt":\#(now + 5000),"callSid":"CA1"}"#,
                #"{"kind":"hangup","from":"america","to":"america","expiresAt":\#(now + 5000),"callSid":"CA1"}"#,
                // A mailbox row that is not there, or not a number.
                "#999999", "#x",
                // An invite whose trunk is a name to look up.
                #"{"kind":"invite","from":"europe","to":"america","expiresAt":\#(now + 5000),"callSid":"CA9","session":"SS9","account":"AC1","identity":"bob","incoming":{"callSid":"CA9","from":"client:mallory","to":"client:bob","params":{},"codec":"PCMU"},"trunk":{"address":"victim.example:9"}}"#,
                // Forged ends of calls nobody has.
                #"{"kind":"hangup","from":"europe","to":"america","expiresAt":\#(now + 5000),"callSid":"CA00000000000000000000000000000000"}"#,
                #"{"kind":"accepted","from":"europe","to":"america","expiresAt":\#(now + 5000),"callSid":"CA0","session":"SS0","won":true}"#,
            ]
            for payload in hostile { try await Self.notify(name, channel: channel, payload) }
            // A flood of registrations of sessions that do not exist is remembered within bounds.
            for index in 0..<50 {
                try await Self.notify(
                    name, channel: PostgresClusterBus.broadcastChannel,
                    #"{"kind":"registered","from":"ghost","expiresAt":\#(now + 10000),"session":"SS\#(index)","account":"AC1","identity":"ghost\#(index)"}"#)
            }
            var counters: [String: Int] = [:]
            for _ in 0..<300 {
                counters = try await Self.cluster(america)
                if (counters["refused"] ?? 0) >= 2 && (counters["expired"] ?? 0) >= 1 && (counters["malformed"] ?? 0) >= 7 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            print("cluster attack: america's counters \(counters)")
            #expect((counters["refused"] ?? 0) >= 2, "misaddressed and self-sent")
            #expect((counters["expired"] ?? 0) >= 1)
            #expect((counters["malformed"] ?? 0) >= 7, "four that are no message, two mailbox references, the invite to a name")
            // The ghost edge's registrations are not in the table: the next reload forgets them.
            #expect(try await CallsAcrossEdgesTests.waitForRegistrations(1, on: america))

            // The edge still routes a real call across edges.
            let invites = bob.events()
            let caller = try await CallHarness(edge: europe).connect(to: "client:bob")
            let callee = try #require(await next(invites)?.invite).accept()
            #expect(await caller.wait(for: .connected))
            #expect(await callee.wait(for: .connected))
            caller.disconnect()
            #expect(await callee.wait(for: .disconnected))
            await bob.unregister()
            await carol.unregister()
        }
    }
}

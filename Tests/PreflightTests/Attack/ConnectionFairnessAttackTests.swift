import Foundation
import PreflightEdge
import PreflightTesting
import Testing

extension AttackTests {
    /// The HTTP listener's connection caps against attackers with many addresses
    /// (scripts/conn-churn): the addresses of one IPv6 /64 count as one source, and a full
    /// listener is shared out fairly, so a light client still gets in while many sources churn
    /// connections to catch every free place.
    @Suite(.loadsTheMachine, .serialized) struct ConnectionFairness {
        /// What scripts/conn-churn prints.
        struct ChurnResult: Decodable {
            struct Sample: Decodable {
                var httpConnections: Int
                var httpRefused: Int
                var httpPreempted: Int?
            }

            struct AttackerCounts: Decodable {
                var connects: Int
                var closedByEdge: Int
                var closedByAttacker: Int
            }

            var tries: Int
            var successes: Int
            var failures: [String]
            var warmedUp: Bool
            var samples: [Sample]
            var maxAttackerHeld: Int?
            var attacker: AttackerCounts
            var edgeAlive: Bool?

            var summary: String {
                "/healthz \(successes) of \(tries) answered 200 (failures: \(failures)); attacker: \(attacker.connects) connects, "
                    + "\(attacker.closedByEdge) closed by the edge, \(attacker.closedByAttacker) churned, held at most "
                    + "\(maxAttackerHeld.map(String.init) ?? "?"); last sample: \(samples.last.map { "\($0)" } ?? "none")"
            }
        }

        static var script: String {
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("scripts/conn-churn").path
        }

        static func decode(_ output: String) throws -> ChurnResult {
            let line = output.split(separator: "\n").last.map(String.init) ?? ""
            return try JSONDecoder().decode(ChurnResult.self, from: Data(line.utf8))
        }

        /// 33 addresses of one /64, 64 connections each (2,112, more than the listener's 2,048):
        /// counted by address they filled the listener and the real client was refused on nearly
        /// every try. Counted by /64 they hold 64 together, and a client from another /64 is
        /// answered every time. In a namespace of the test's own: loopback has only ::1.
        @Test(.enabled(
            if: NetworkNamespace.canRun(needing: "ip", "python3"),
            "needs a user and network namespace (unshare -rn), ip and python3"))
        func theAddressesOfOneSlash64AreOneSource() async throws {
            let output = try await NetworkNamespace.run("""
                ip -6 addr add 2001:db8:1::1/64 dev lo && ip -6 addr add 2001:db8:2::1/64 dev lo \
                && ip -6 route add local 2001:db8:1::/64 dev lo \
                && exec python3 '\(Self.script)' --edge '\(AttackedEdge.executable.path)' --edge-host 2001:db8:1::1 \
                --attacker 2001:db8:1::10 --sources 33 --per-source 64 --client 2001:db8:2::1 --tries 24
                """)
            let result = try Self.decode(output)
            print("connection fairness, one /64: \(result.summary)")
            #expect(result.warmedUp, "the edge never closed an attacker's connection: \(result.summary)")
            #expect(result.successes == result.tries, "\(result.summary)")
            #expect(result.samples.count >= 4, "\(result.summary)")
            // A sample counts every connection but its own /status request: the light client's
            // last /healthz connection (another /64) may still be open on a busy edge's side.
            #expect((result.maxAttackerHeld ?? .max) <= 64 + 1, "\(result.summary)")
            #expect(result.edgeAlive == true)
        }

        /// A listener of 40 connections, 16 loopback addresses keeping 64 connections each and
        /// closing each within 200 ms to open another (up to 1,000 a second: every free place
        /// is raced for at once), and a light client from another address. First come, first
        /// served, the client found a free place on about a third of its tries; shared fairly,
        /// the heavy sources give way to it.
        @Test(.enabled(if: ExternalTool.canRun(needing: "python3"), "needs python3"))
        func churnFromManyAddressesDoesNotKeepALightClientOut() async throws {
            let edge = try await AttackedEdge.start(["--max-connections", "40"])
            defer { edge.stop() }
            let output = try await ExternalTool.run(
                "python3",
                [
                    Self.script, "--port", "\(edge.port)", "--attacker", "127.0.0.10", "--sources", "16", "--per-source", "64",
                    "--hold-ms", "200", "--rate", "1000", "--client", "127.0.0.2", "--tries", "60",
                ],
                environment: ["PREFLIGHT_API_SECRET": edge.edge.secret])
            let result = try Self.decode(output)
            print("connection fairness, 16 churning addresses: \(result.summary)")
            #expect(result.warmedUp, "the edge never closed an attacker's connection: \(result.summary)")
            // Nearly every try: a connection may still meet a full accept queue now and then.
            #expect(result.successes * 10 >= result.tries * 9, "\(result.summary)")
            #expect(result.attacker.closedByAttacker > 100, "the attacker did not churn: \(result.summary)")
            #expect((result.samples.last?.httpPreempted ?? 0) > 0, "\(result.summary)")
            #expect(result.samples.allSatisfy { $0.httpConnections <= 40 }, "\(result.summary)")
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }
    }
}

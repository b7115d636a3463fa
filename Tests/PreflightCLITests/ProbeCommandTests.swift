import ArgumentParser
import Foundation
@testable import PreflightCLI
import PreflightCore
import Synchronization
import PreflightTesting
import Testing

/// `preflight probe`: its argument rules, a coded error for bitrates out of range, and a run on a
/// local edge with its JSON.
@Suite(.realTime, .serialized) struct ProbeCommandTests {
    @Test(arguments: [
        (["probe", "--uplink", "--downlink"], "--uplink and --downlink each probe one direction; give neither for both"),
        (["probe", "--token", "a.b.c"], "--edge-url and --token go together"),
        (["probe", "--edge", "ws://127.0.0.1:9/signaling"], "--edge-url and --token go together"),
        (["probe", "--signaling-timeout", "0"], "--signaling-timeout must be 1 to 120 seconds, got 0"),
        (["probe", "--measurement-fault", "reorder-as-lost"], "--measurement-fault reorder-as-lost is for preflight run"),
        (["run", "--measurement-fault", "whole-train"], "--measurement-fault whole-train is for preflight probe"),
        (["probe", "--edge-ca-file", "/ca.pem"], "--edge-ca-file is for a wss:// or https:// --edge-url; the local edge is ws:// on loopback"),
    ] as [([String], String)])
    func refuses(arguments: [String], rule: String) {
        #expect(ValidationRuleTests.rejection(arguments) == rule)
    }

    static func run(_ arguments: [String]) async throws -> (outcome: ProbeCommand.Outcome, output: String, progress: [String]) {
        let command = try #require(try PreflightCommand.parseAsRoot(["probe"] + arguments) as? ProbeCommand)
        let output = Mutex("")
        let progress = Mutex<[String]>([])
        let outcome = await command.execute(
            progress: { line in progress.withLock { $0.append(line) } }, output: { text in output.withLock { $0 += text } })
        return (outcome, output.withLock { $0 }, progress.withLock { $0 })
    }

    /// Out of range is a coded error (70301) before anything connects, not a clamp.
    @Test(arguments: [["--expected-up", "99999"], ["--expected-down", "5000001"], ["--downlink", "--expected-down", "0"]])
    func bitratesOutOfRangeAreCodedErrors(_ arguments: [String]) async throws {
        let (outcome, _, _) = try await Self.run(arguments + ["--edge-url", "ws://127.0.0.1:9/signaling", "--token", "a.b.c"])
        #expect(outcome.error?.code == .invalidProbeConfiguration)
        #expect(outcome.result.state == .unavailable)
    }

    @Test func aLocalProbePrintsItsJSONAndSaysItIsLoopback() async throws {
        let (outcome, output, progress) = try await Self.run(["--uplink", "--expected-up", "400000", "--json"])
        #expect(outcome.error == nil)
        #expect(progress.first?.contains("loopback") == true, "\(progress)")
        let data = Data(output.utf8)
        #expect(try JSONDecoder().decode(LastmileProbeResult.self, from: data) == outcome.result)
        // The seed's field names, as Agora's dashboards read them.
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["state"] as? String == outcome.result.state.rawValue)
        #expect(json["loopback"] as? Bool == true)
        #expect(json["downlinkReport"] == nil)
        let uplink = try #require(json["uplinkReport"] as? [String: Any])
        for key in ["packetLossRate", "jitter", "availableBandwidth", "probedBitrate", "bytesSent", "duration", "atLeastExpected"] {
            #expect(uplink[key] != nil, "no \(key)")
        }
        // Loopback holds the expected bitrate, unless the busy host stalled the receiver (then no estimate).
        if outcome.result.state == .complete {
            #expect(uplink["atLeastExpected"] as? Bool == true)
            #expect((uplink["availableBandwidth"] as? Double ?? 0) >= 400)
        } else {
            #expect(uplink["reason"] is String)
        }
        // A quality line every 2 s went to the progress stream, the JSON alone to the output.
        #expect(progress.dropFirst().allSatisfy { $0.contains("quality") })
    }

    @Test func theSummaryNamesEachDirection() async throws {
        let (outcome, output, _) = try await Self.run(["--expected-up", "200000", "--expected-down", "200000"])
        #expect(output.contains("last-mile probe: \(outcome.result.state.rawValue)"), "\(output)")
        for (name, report) in [("uplink", outcome.result.uplinkReport), ("downlink", outcome.result.downlinkReport)] {
            let report = try #require(report)
            let verdict = report.state == .complete ? "at least the expected 200 kbit/s" : "no estimate ("
            #expect(output.contains("\(name): \(verdict)"), "\(output)")
        }
        #expect(output.contains("loopback"))
    }
}

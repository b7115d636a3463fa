import ArgumentParser
import Foundation
@testable import PreflightCLI
import PreflightCore
import Synchronization
import PreflightTesting
import Testing

/// `preflight diagnose`: its argument rules, a run on the local edge with its JSON, and the
/// failures' codes.
@Suite(.realTime, .serialized) struct DiagnoseCommandTests {
    @Test(arguments: [
        (["diagnose", "--token", "a.b.c"], "--edge-url and --token go together"),
        (["diagnose", "--signaling-timeout", "0"], "--signaling-timeout must be 1 to 120 seconds, got 0"),
        (["diagnose", "--edge-ca-file", "/ca.pem"], "--edge-ca-file is for a wss:// or https:// --edge-url; the local edge is ws:// on loopback"),
    ] as [([String], String)])
    func refuses(arguments: [String], rule: String) {
        #expect(ValidationRuleTests.rejection(arguments) == rule)
    }

    static func run(_ arguments: [String]) async throws -> (outcome: DiagnoseCommand.Outcome, output: String, progress: [String]) {
        let command = try #require(try PreflightCommand.parseAsRoot(["diagnose"] + arguments) as? DiagnoseCommand)
        let output = Mutex("")
        let progress = Mutex<[String]>([])
        let (outcome, _) = await command.execute(
            progress: { line in progress.withLock { $0.append(line) } }, output: { text in output.withLock { $0 += text } })
        return (outcome, output.withLock { $0 }, progress.withLock { $0 })
    }

    @Test func aLocalDiagnosisPrintsItsStatesAndJSON() async throws {
        let (outcome, output, progress) = try await Self.run(["--duration", "2", "--json"])
        #expect(outcome.state == "completed", "\(progress)")
        #expect(progress.contains { $0.hasPrefix("started: calling +18005551234") })
        #expect(progress.last == "completed")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        #expect(json["state"] as? String == "completed")
        let diagnosis = try #require(json["diagnosis"] as? [String: Any])
        // The JSON carries the diagnosis's RTT as the SDK made it, in seconds (MetricSummaryTests
        // checks the conversion): on loopback a small fraction of one, however busy the host.
        let rtt = try #require(diagnosis["rtt"] as? [String: Double])
        #expect(abs((rtt["avg"] ?? 1) - (outcome.diagnosis?.rtt.avg ?? 0)) < 1e-12, "\(rtt) in the JSON")
        #expect((rtt["avg"] ?? 1) > 0 && (rtt["avg"] ?? 1) < 1, "RTT in seconds: \(rtt)")
        // The quality is the band of the MOS (how good a loopback call stays on a busy host is
        // the lab's to measure, not a test's).
        let mos = try #require(diagnosis["mos"] as? Double)
        #expect(diagnosis["quality"] as? String == QualityCategory(mos: mos).rawValue, "mos \(mos)")
        // Counts from the JSON, against each other: what went out came back (loopback), but for
        // what was in flight when the totals were read (50 packets a second over twice the
        // largest round trip and half a second more (frames a stalled pacer sends late, at once), and two more).
        let sent = try #require(diagnosis["packetsSent"] as? Int)
        let received = try #require(diagnosis["packetsReceived"] as? Int)
        let inFlight = Int((((rtt["max"] ?? 1) * 2 + 0.5) * 50).rounded(.up)) + 2
        #expect(sent > 0 && received <= sent && received + inFlight >= sent, "\(received) of \(sent) packets, \(inFlight) in flight")
    }

    @Test(arguments: [
        (["--number", ""], PreflightError.Code.destinationNumberIsRequired),
        (["--number", "+19999999999"], PreflightError.Code.callNotFound),
        (["--duration", "0.5"], PreflightError.Code.invalidArgument),
    ] as [([String], PreflightError.Code)])
    func failuresEndInTheFailedStateWithTheirCodes(arguments: [String], code: PreflightError.Code) async throws {
        let (outcome, output, progress) = try await Self.run(arguments + (arguments.contains("--duration") ? [] : ["--duration", "2"]))
        #expect(outcome.state == "failed")
        #expect(outcome.error?.code == code.rawValue, "\(progress)")
        #expect(output.contains("Pre-call diagnosis failed: error \(code.rawValue)"))
    }
}

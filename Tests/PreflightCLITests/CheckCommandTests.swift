import ArgumentParser
import Foundation
@testable import PreflightCLI
import PreflightCore
import PreflightTesting
import Synchronization
import Testing

/// `preflight check`: its argument rules, a run on the local edge whose JSON an independent
/// check (Python) reads as 100ms's, and a failure's exit.
@Suite(.realTime, .serialized) struct CheckCommandTests {
    @Test(arguments: [
        (["check", "--token", "a.b.c"], "--edge-url and --token go together"),
        (["check", "--signaling-timeout", "0"], "--signaling-timeout must be 1 to 120 seconds, got 0"),
        (["check", "--ice-timeout", "nan"], "--ice-timeout must be 0.1 to 60 seconds"),
        (["check", "--video-bitrate", "500000"], "--video-bitrate is in kbps (100-1000)"),
    ] as [([String], String)])
    func refuses(arguments: [String], rule: String) {
        #expect(ValidationRuleTests.rejection(arguments) == rule)
    }

    static func run(_ arguments: [String]) async throws -> (result: ConnectivityCheckResult, output: String, progress: [String]) {
        let command = try #require(try PreflightCommand.parseAsRoot(["check"] + arguments) as? CheckCommand)
        let output = Mutex("")
        let progress = Mutex<[String]>([])
        let result = await command.execute(
            progress: { line in progress.withLock { $0.append(line) } }, output: { text in output.withLock { $0 += text } })
        return (result, output.withLock { $0 }, progress.withLock { $0 })
    }

    /// The scripts directory (the independent JSON check is `labkit.checkjson`).
    static var scriptsDirectory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts").path
    }

    @Test(.enabled(if: ExternalTool.canRun(needing: "python3"), "needs python3"))
    func aLocalCheckWithAMissingCameraCompletesAndItsJSONReadsAs100msS() async throws {
        let (result, output, progress) = try await Self.run(["--duration", "5", "--json", "--camera", "/dev/video-none", "--video-bitrate", "200"])
        #expect(progress.map { $0.split(separator: " ").last.map(String.init) ?? "" }.suffix(7) == ConnectivityCheckState.allCases.map(\.description))
        #expect(result.state == .completed)
        #expect(result.deviceTestReport.camera.outcome == .failed && result.deviceTestReport.camera.tested)
        #expect(result.deviceTestReport.camera.error?.code == 70401)
        #expect(result.errors.map(\.code) == [70401])
        // The pattern stood in: video still went up and came back (nine in ten at least, the rest in flight).
        let video = result.mediaServerReport.stats.video
        #expect(video.packetsSent > 0 && video.packetsReceived * 10 >= video.packetsSent * 9, "\(video)")
        let verdict = try await ExternalTool.run(
            "python3", ["-m", "labkit.checkjson"], standardInput: Array(output.utf8), environment: ["PYTHONPATH": Self.scriptsDirectory])
        #expect(verdict.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "\(verdict)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let media = try #require(json["mediaServerReport"] as? [String: Any])
        #expect(media["isSubcribeICEConnected"] as? Bool == true)
    }

    @Test func anEdgeThatDoesNotAnswerIs70601() async throws {
        let (result, output, _) = try await Self.run(["--edge-url", "http://127.0.0.1:9", "--token", "a.b.c"])
        #expect(result.state == .starting)
        #expect(result.errors.map(\.code) == [70601])
        #expect(output.contains("error 70601: init: cannot reach 127.0.0.1:9"), "\(output)")
    }
}

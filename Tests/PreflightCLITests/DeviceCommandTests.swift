import ArgumentParser
import Foundation
@testable import PreflightCLI
import PreflightCore
import PreflightDevices
import PreflightTesting
import Synchronization
import Testing

/// `preflight devices`, `mic-check` and `speaker-check` against a headless PulseAudio server.
@Suite struct DeviceCommandTests {
    static func parse<Command: ParsableCommand>(_ arguments: [String], as: Command.Type) throws -> Command {
        try #require(try PreflightCommand.parseAsRoot(arguments) as? Command)
    }

    @Test(arguments: ["0.5", "61", "nan", "-1", "1e300"])
    func aMicCheckDurationOutOfRangeIs70005(_ seconds: String) async throws {
        let command = try Self.parse(["mic-check", "--duration=\(seconds)", "--audio-server", "unix:/nonexistent"], as: MicCheckCommand.self)
        let outcome = await command.execute(progress: { _ in }, output: { _ in })
        #expect(throws: PreflightError.self) { try outcome.get() }
        if case .failure(let error) = outcome { #expect(error.code == .invalidArgument) }
    }

    @Test func theLevelBarSpansMinus60To0Decibels() {
        #expect(MicCheckCommand.levelLine(second: 1, level: 0).hasSuffix(String(repeating: "█", count: 30)))
        #expect(MicCheckCommand.levelLine(second: 2, level: -160).hasSuffix(String(repeating: "░", count: 30)))
        #expect(MicCheckCommand.levelLine(second: 3, level: -30) == "  3 s   -30.0 dBFS  " + String(repeating: "█", count: 15) + String(repeating: "░", count: 15))
    }

    @Test(.enabled(
        if: ExternalTool.canRun(needing: "pulseaudio", "sox") && (ExternalTool.isCI || PulseAudioSystem.isBuilt),
        "needs pulseaudio, sox and a build with libpulse-dev (apt-get install libpulse-dev pulseaudio sox)"))
    func listsChecksAndPlaysOnARealServer() async throws {
        let server = try await PulseAudioServer.start()
        defer { server.stop() }
        let devices = try Self.parse(["devices", "--json", "--audio-server", server.address], as: DevicesCommand.self)
        let listing = try JSONDecoder().decode(DevicesCommand.Listing.self, from: Data(try await devices.execute().utf8))
        #expect(Set(listing.audio.map(\.id)) == [PulseAudioServer.sink, PulseAudioServer.monitor, PulseAudioServer.silentSource])
        let text = try await Self.parse(["devices", "--audio-server", server.address], as: DevicesCommand.self).execute()
        #expect(text.contains("  * spk  Null Output"))

        let lines = Mutex<[String]>([])
        let output = Mutex("")
        let micCheck = try Self.parse(
            ["mic-check", "--duration", "2", "--device", PulseAudioServer.silentSource, "--audio-server", server.address],
            as: MicCheckCommand.self)
        let result = try await micCheck.execute(progress: { _ in }, output: { text in
            lines.withLock { $0.append(text) }
            output.withLock { $0 += text }
        }).get()
        defer { try? FileManager.default.removeItem(at: result.recordingURL) }
        #expect(lines.withLock { $0.prefix(2) } == [MicCheckCommand.levelLine(second: 1, level: -160), MicCheckCommand.levelLine(second: 2, level: -160)])
        #expect(output.withLock { $0.contains("silent: every second was below -60 dBFS") })

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("speaker-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tone = directory.appendingPathComponent("tone.wav")
        _ = try ExternalTool.run("sox", ["-n", "-r", "16000", "-c", "1", "-b", "16", tone.path, "synth", "1", "sine", "1000", "vol", "0.5"])
        let played = try await Self.parse(
            ["speaker-check", "--file", tone.path, "--json", "--audio-server", server.address], as: SpeakerCheckCommand.self
        ).execute().get()
        let decoded = try JSONDecoder().decode(SpeakerCheckResult.self, from: Data(played.utf8))
        #expect(decoded.source == .file(tone) && decoded.duration == 1 && decoded.device == PulseAudioServer.sink)
        #expect(played.contains("\"kind\" : \"file\""))

        let missing = try await Self.parse(
            ["speaker-check", "--file", directory.appendingPathComponent("missing.wav").path, "--audio-server", server.address],
            as: SpeakerCheckCommand.self
        ).execute()
        if case .failure(let error) = missing { #expect(error.code == .fileUnreadable) } else { Issue.record("a missing file played") }
    }
}

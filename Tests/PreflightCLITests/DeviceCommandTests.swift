import ArgumentParser
import Foundation
@testable import PreflightCLI
import PreflightCore
import PreflightDevices
import PreflightTesting
import Synchronization
import Testing

/// The device commands' tests, one at a time (they start audio servers and an edge; see
/// DeviceTests in PreflightDevicesTests).
@Suite(.realTime, .serialized) struct DeviceCommandSuites {}

extension DeviceCommandSuites {
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
            let listing = try JSONDecoder().decode(DevicesCommand.Listing.self, from: Data(try await devices.execute().text.utf8))
            #expect(listing.audioError == nil)
            #expect(
                Set(listing.audio.map(\.id)) == [
                    PulseAudioServer.sink, PulseAudioServer.monitor, PulseAudioServer.silentSource, PulseAudioServer.room,
                    PulseAudioServer.roomMicrophone,
                ])
            let text = try await Self.parse(["devices", "--audio-server", server.address], as: DevicesCommand.self).execute().text
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
            _ = try await ExternalTool.run("sox", ["-n", "-r", "16000", "-c", "1", "-b", "16", tone.path, "synth", "1", "sine", "1000", "vol", "0.5"])
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
}

extension DeviceCommandSuites {
    /// `preflight camera-check` on the sources this machine has, and `devices` without an audio server.
    @Suite struct CameraCheckCommandTests {
        @Test(arguments: [
            (["camera-check", "--device", "/dev/video0", "--source", "testsrc"], "--device and --source each name what to read; give one"),
            (["camera-check", "--source", "webcam"], "--source must be testsrc, black, frozen or stdin, got \"webcam\""),
            (["camera-check", "--duration", "0.5"], "--duration must be 1 to 60 seconds"),
            (["camera-check", "--size", "640"], "--size must be WIDTHxHEIGHT, 16 to 8192 each, got \"640\""),
            (["camera-check", "--size", "8x8"], "--size must be WIDTHxHEIGHT, 16 to 8192 each, got \"8x8\""),
        ] as [([String], String)])
        func refuses(arguments: [String], rule: String) {
            #expect(ValidationRuleTests.rejection(arguments) == rule)
        }

        @Test(arguments: ["testsrc", "black", "frozen"])
        func aSyntheticSourceGivesItsVerdictAndASnapshot(_ pattern: String) async throws {
            let snapshot = FileManager.default.temporaryDirectory.appendingPathComponent("snapshot-\(UUID().uuidString.prefix(8)).png")
            defer { try? FileManager.default.removeItem(at: snapshot) }
            let command = try #require(
                try PreflightCommand.parseAsRoot(
                    ["camera-check", "--source", pattern, "--size", "160x120", "--duration", "1", "--snapshot", snapshot.path])
                    as? CameraCheckCommand)
            let text = try await command.execute().get()
            print(text)
            #expect(text.contains("resolution 160x120 (asked 160x120)"))
            let verdict = ["testsrc": "frames move: the camera works", "black": "black: every frame is black", "frozen": "frozen: every frame"]
            #expect(text.contains(try #require(verdict[pattern])))
            let png = Array(try Data(contentsOf: snapshot))
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            #expect(png.count > 160 * 120 * 3)
        }

        @Test func aMissingCameraIs70401() async throws {
            let command = try #require(try PreflightCommand.parseAsRoot(["camera-check", "--device", "/dev/video-none"]) as? CameraCheckCommand)
            let outcome = await command.execute()
            if case .failure(let error) = outcome { #expect(error.code == .deviceNotFound) } else { Issue.record("a missing camera was read") }
        }

        /// Without an audio server the listing still lists the cameras, says why there is no audio, and fails.
        @Test func devicesWithoutAnAudioServerSaysWhy() async throws {
            let command = try #require(
                try PreflightCommand.parseAsRoot(["devices", "--json", "--audio-server", "unix:/nonexistent/native"]) as? DevicesCommand)
            let (text, error) = try await command.execute()
            #expect(error?.code == .deviceServiceUnavailable)
            let listing = try JSONDecoder().decode(DevicesCommand.Listing.self, from: Data(text.utf8))
            #expect(listing.audio.isEmpty && listing.audioError?.code == 70405)
        }
    }
}

extension DeviceCommandSuites {
    /// `preflight echo-test` on a local edge and a headless PulseAudio server.
    @Suite struct EchoTestCommandTests {
        @Test func theIntervalIsCheckedBeforeAnyDeviceOpens() async throws {
            let command = try #require(try PreflightCommand.parseAsRoot(["echo-test", "--interval", "1", "--audio-server", "unix:/nonexistent"]) as? EchoTestCommand)
            let outcome = await command.execute(progress: { _ in })
            if case .failure(let error) = outcome { #expect(error.code == .invalidArgument) } else { Issue.record("interval 1 ran") }
            #expect(ValidationRuleTests.rejection(["echo-test", "--token", "a.b.c"]) == "--edge-url and --token go together")
        }

        @Test(.enabled(
            if: ExternalTool.canRun(needing: "pulseaudio") && (ExternalTool.isCI || PulseAudioSystem.isBuilt),
            "needs pulseaudio and a build with libpulse-dev"))
        func aSilentMicrophoneIsNotHeardBack() async throws {
            let server = try await PulseAudioServer.start()
            defer { server.stop() }
            let command = try #require(
                try PreflightCommand.parseAsRoot([
                    "echo-test", "--interval", "2", "--input", PulseAudioServer.silentSource, "--output", PulseAudioServer.sink,
                    "--audio-server", server.address, "--json",
                ]) as? EchoTestCommand)
            let text = try await command.execute(progress: { _ in }).get()
            let result = try JSONDecoder().decode(EchoTestResult.self, from: Data(text.utf8))
            #expect(!result.microphoneHeardSound && !result.heardBack)
            #expect(result.interval == 2 && abs(result.playedBackSeconds - 2) < 0.3)
            #expect(result.report.application == "record-playback")
            #expect(EchoTestCommand.summary(result).contains("silent: the microphone heard nothing"))
        }
    }
}

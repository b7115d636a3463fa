import Foundation
import PreflightCore
import PreflightDevices
import PreflightTesting
import Synchronization
import Testing

extension DeviceTests {
    /// Every way a device check can fail gets its code, against a real PulseAudio server (or none).
    @Suite(.enabled(
        if: ExternalTool.canRun(needing: "pulseaudio") && (ExternalTool.isCI || PulseAudioSystem.isBuilt),
        "needs pulseaudio and a build with libpulse-dev (apt-get install libpulse-dev pulseaudio)"))
    struct AudioCheckErrorTests {
        static func diagnostics(server: String, directory: URL = FileManager.default.temporaryDirectory) -> DeviceDiagnostics {
            DeviceDiagnostics(
                configuration: DeviceDiagnosticsConfiguration(
                    audioSystem: PulseAudioSystem(server: server, timeout: 2), recordingDirectory: directory))
        }

        static func code(_ body: () async throws -> Void) async -> PreflightError.Code? {
            do {
                try await body()
                return nil
            } catch let error as PreflightError {
                return error.code
            } catch {
                return nil
            }
        }

        @Test func aDeviceThatDoesNotExistIs70401() async throws {
            let server = try await PulseAudioServer.start()
            defer { server.stop() }
            let diagnostics = Self.diagnostics(server: server.address)
            #expect(await Self.code { _ = try await diagnostics.micCheck(timeInMillis: 1000, device: "no-such-microphone") } == .deviceNotFound)
            #expect(await Self.code { _ = try await diagnostics.speakerCheck(device: "no-such-speaker") } == .deviceNotFound)
        }

        @Test func noAudioServerIs70405() async throws {
            let diagnostics = Self.diagnostics(server: "unix:/nonexistent/preflight-\(UUID().uuidString)/native")
            #expect(await Self.code { _ = try await diagnostics.audioDevices() } == .deviceServiceUnavailable)
            #expect(await Self.code { _ = try await diagnostics.micCheck(timeInMillis: 1000) } == .deviceServiceUnavailable)
            #expect(await Self.code { _ = try await diagnostics.speakerCheck() } == .deviceServiceUnavailable)
        }

        /// A server that admits only clients with its cookie (none has it) refuses with "access denied".
        @Test func aServerThatRefusesUsIs70403() async throws {
            let server = try await PulseAudioServer.start(anonymous: false)
            defer { server.stop() }
            let diagnostics = Self.diagnostics(server: server.address)
            #expect(await Self.code { _ = try await diagnostics.audioDevices() } == .devicePermissionDenied)
            #expect(await Self.code { _ = try await diagnostics.micCheck(timeInMillis: 1000) } == .devicePermissionDenied)
        }

        @Test(arguments: [0, 999, 60_001, -1, Int.max])
        func aMicCheckDurationOutOfRangeIs70005(_ milliseconds: Int) async {
            let diagnostics = Self.diagnostics(server: "unix:/nonexistent")
            #expect(await Self.code { _ = try await diagnostics.micCheck(timeInMillis: milliseconds) } == .invalidArgument)
            let result = Mutex<Result<MicCheckResult, PreflightError>?>(nil)
            await withCheckedContinuation { continuation in
                diagnostics.startMicCheck(timeInMillis: milliseconds) { outcome in
                    result.withLock { $0 = outcome }
                    continuation.resume()
                }
            }
            #expect(result.withLock { (try? $0?.get()) == nil && $0 != nil })
        }

        /// Stopping a check returns what was recorded so far; a second check while one runs is 70407.
        @Test func stopEndsTheCheckWithWhatWasRecordedAndOneRunsAtATime() async throws {
            let server = try await PulseAudioServer.start()
            defer { server.stop() }
            let directory = try AudioTools.scratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let diagnostics = Self.diagnostics(server: server.address, directory: directory)
            let levels = Mutex(0)
            let finished = Mutex<Result<MicCheckResult, PreflightError>?>(nil)
            let done = AsyncStream<Void>.makeStream()
            diagnostics.startMicCheck(timeInMillis: 30_000, device: PulseAudioServer.silentSource) { outcome in
                finished.withLock { $0 = outcome }
                done.continuation.finish()
            } onLevelChange: { _ in
                levels.withLock { $0 += 1 }
            }
            #expect(await Self.code { _ = try await diagnostics.micCheck(timeInMillis: 1000) } == .deviceCheckInProgress)
            #expect(await eventually { levels.withLock { $0 } >= 2 }, "levels: \(levels.withLock { $0 })")
            let secondsReported = levels.withLock { $0 }
            diagnostics.stopMicCheck()
            for await _ in done.stream {}
            let result = try #require(try finished.withLock { try $0?.get() })
            // What was recorded when it stopped: the seconds already reported at least, well short
            // of the 30 asked for.
            #expect(result.stoppedEarly)
            #expect(result.duration >= Double(secondsReported) && result.duration < 30, "\(result.duration) s")
            #expect(try AudioTools.samples(result.recordingURL).duration == result.duration)
            // The check is over: another may run.
            let next = try await diagnostics.micCheck(timeInMillis: 1000, device: PulseAudioServer.silentSource)
            #expect(!next.stoppedEarly && next.duration == 1)
            // The newest recording is the one kept; the older one is removed.
            #expect(diagnostics.lastRecording == next.recordingURL)
            #expect(!FileManager.default.fileExists(atPath: result.recordingURL.path))
        }

        /// A speaker check of a file that is not a 16-bit PCM WAV fails with the WAV's code, before
        /// any device is opened.
        @Test func aFileThatIsNotAPlayableWAVIsACodedError() async throws {
            let directory = try AudioTools.scratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let diagnostics = Self.diagnostics(server: "unix:/nonexistent")
            let text = directory.appendingPathComponent("notes.wav")
            try Data("not a wav file at all".utf8).write(to: text)
            #expect(await Self.code { _ = try await diagnostics.speakerCheck(file: text) } == .malformed)
            var eightBit = try WAVFile(sampleRate: 8000, samples: [1, 2, 3, 4]).encoded()
            eightBit[34] = 8  // bits per sample
            let eightBitURL = directory.appendingPathComponent("8bit.wav")
            try Data(eightBit).write(to: eightBitURL)
            #expect(await Self.code { _ = try await diagnostics.speakerCheck(file: eightBitURL) } == .deviceFormatUnsupported)
            #expect(await Self.code { _ = try await diagnostics.speakerCheck(file: URL(fileURLWithPath: "/dev/zero")) } == .fileUnreadable)
            #expect(await Self.code { _ = try await diagnostics.speakerCheck(file: directory.appendingPathComponent("missing.wav")) } == .fileUnreadable)
        }
    }
}

import Foundation
import Preflight
import PreflightCore
import PreflightDevices
import PreflightEdge
import PreflightTesting
import Synchronization
import Testing

extension DeviceTests {
    /// Agora's echo test end to end: a speech-like signal played in the room (a null sink) is what
    /// the microphone (its monitor) hears; the echo test sends it to a local edge's record-playback
    /// application, which plays it back after the interval, on the speaker (another null sink), whose
    /// monitor parecord records. Both Preflight's own alignment and the outside recording must find
    /// the signal again, the interval later.
    @Suite(.enabled(
        if: ExternalTool.canRun(needing: "pulseaudio", "paplay", "parecord") && (ExternalTool.isCI || PulseAudioSystem.isBuilt),
        "needs pulseaudio, pulseaudio-utils and a build with libpulse-dev"))
    struct EchoTestTests {
        @Test(arguments: [1, 11, 0, -5])
        func anIntervalOutOfRangeIs70005(_ interval: Int) async {
            let test = EchoTest(options: EchoTestOptions(accessToken: "a.b.c", edgeURL: "ws://127.0.0.1:9/signaling"))
            do {
                _ = try await test.startEchoTest(interval: interval)
                Issue.record("interval \(interval) ran")
            } catch {
                #expect(error.code == .invalidArgument)
            }
        }

        @Test func theRecordingComesBackAfterTheInterval() async throws {
            let server = try await PulseAudioServer.start()
            defer { server.stop() }
            let directory = try AudioTools.scratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            // 8 s of the speech-like test signal at 8 kHz: syllables whose envelope is unmistakable.
            let signal = TestSignal(sampleRate: 8000, amplitude: 16000)
            let voice = (0..<(8 * 8000)).map { signal.sample(at: $0) }
            let voiceFile = directory.appendingPathComponent("voice.wav")
            try Data(try WAVFile(sampleRate: 8000, samples: voice).encoded()).write(to: voiceFile)
            let raw = directory.appendingPathComponent("speaker.raw")
            let recorder = try AudioTools.record(raw, device: PulseAudioServer.monitor, server: server)
            defer { AudioTools.finish(recorder) }
            let player = try AudioTools.play(voiceFile, device: PulseAudioServer.room, server: server)
            defer { AudioTools.finish(player) }

            var configuration = LocalEdge.configuration()
            configuration.playbackPause = .milliseconds(500)
            let result = try await LocalEdge.withRunning(configuration: configuration) { edge in
                let test = EchoTest(
                    options: EchoTestOptions(
                        accessToken: try await edge.token(application: .recordPlayback), edgeURL: edge.signalingURL,
                        inputDevice: PulseAudioServer.roomMicrophone, outputDevice: PulseAudioServer.sink,
                        audioSystem: PulseAudioSystem(server: server.address)))
                return try await test.startEchoTest(interval: 2)
            }
            // The monitor's last buffers: the recording goes on 0.3 s past the end of the test.
            #expect(await AudioTools.waitForRecording(raw, beyond: AudioTools.size(of: raw), seconds: 0.3))
            AudioTools.finish(recorder)
            print(
                "echo test: interval \(result.interval) s, recorded \(result.recordedSeconds) s, played back \(result.playedBackSeconds) s, delay \(result.delay.map { String(format: "%.3f", $0) } ?? "-") s, correlation \(result.correlation.map { String(format: "%.3f", $0) } ?? "-"), heard back \(result.heardBack), device error \(result.deviceError.map { "\($0.code) \($0.message)" } ?? "none"); network rtt \(result.report.networkStats.rtt.average) ms, mos \(result.report.networkStats.mos.average), \(result.report.statsSamples.count) samples")
            #expect(result.inputDevice == PulseAudioServer.roomMicrophone && result.outputDevice == PulseAudioServer.sink)
            #expect(result.microphoneHeardSound)
            #expect(result.heardBack)
            #expect((result.correlation ?? 0) > 0.8)
            #expect(abs(result.playedBackSeconds - 2) < 0.3)
            // The interval, plus loopback's network and buffers (generous: a busy host is slow).
            let delay = try #require(result.delay)
            #expect(delay > 1.9 && delay < 3.5, "delay \(delay) s")
            #expect(!result.stoppedEarly)
            #expect(!result.report.callSid.isEmpty && !result.report.statsSamples.isEmpty)

            // The outside recording of the speaker: the voice, found again in what was played in the room.
            // The source is what paplay played, not what the echo test sent: where a busy host
        // starved the microphone the test sent silence, and the samples no longer line up after
        // it, nor do they by a fraction of a sample after two resamplings; the loudness envelope
        // still does.
        let heard = try AudioTools.samples(try AudioTools.wav(fromRaw: raw))
        let speaker = AudioResampler.resample(heard.samples, from: 48_000, to: 8000)
        let alignment = try #require(EchoAlignment(sent: voice, received: speaker))
        print(
            "parecord on the speaker's monitor: the voice, envelope correlation \(alignment.envelopeCorrelation), samples \(alignment.correlation) over \(alignment.compared) samples")
        #expect(alignment.envelopeCorrelation > 0.8)
        }

        /// Agora's `stopEchoTest`: a 10 s echo test (10 s recorded, then played back) stopped as
        /// soon as it runs ends at once, its result marked as stopped early; stopping when none
        /// runs does nothing.
        @Test func stopEchoTestEndsARunningTest() async throws {
            let server = try await PulseAudioServer.start()
            defer { server.stop() }
            let result = try await LocalEdge.withRunning { edge in
                let test = EchoTest(
                    options: EchoTestOptions(
                        accessToken: try await edge.token(application: .recordPlayback), edgeURL: edge.signalingURL,
                        inputDevice: PulseAudioServer.roomMicrophone, outputDevice: PulseAudioServer.sink,
                        audioSystem: PulseAudioSystem(server: server.address)))
                test.stopEchoTest()
                let started = ContinuousClock.now
                let outcome = Mutex<Result<EchoTestResult, PreflightError>?>(nil)
                test.startEchoTest(interval: 10) { result in outcome.withLock { $0 = result } }
                // The test runs once the microphone delivers: stop it as soon as that is so (a
                // stop before it runs does nothing, so ask until it ends).
                #expect(await eventually {
                    test.stopEchoTest()
                    return outcome.withLock { $0 != nil }
                }, "the echo test did not end on stopEchoTest")
                #expect(ContinuousClock.now - started < .seconds(15), "a stopped test took \(ContinuousClock.now - started)")
                return try #require(try outcome.withLock { $0 }?.get())
            }
            #expect(result.stoppedEarly)
            #expect(result.interval == 10)
            #expect(result.playedBackSeconds < 10)
        }
    }
}

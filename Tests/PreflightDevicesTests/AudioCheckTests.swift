import Foundation
import PreflightCore
import PreflightDevices
import PreflightTesting
import Synchronization
import Testing

extension DeviceTests {
    /// The microphone and speaker checks against a real PulseAudio server with null devices: a tone
    /// played into the speaker is what its monitor (the microphone here) hears, and what the speaker
    /// check plays is recorded back from the monitor by an outside program (parecord) and measured
    /// by another (sox).
    @Suite(.enabled(
        if: ExternalTool.canRun(needing: "pulseaudio", "paplay", "parecord", "sox") && (ExternalTool.isCI || PulseAudioSystem.isBuilt),
        "needs pulseaudio, pulseaudio-utils and sox, and a build with libpulse-dev (apt-get install libpulse-dev pulseaudio pulseaudio-utils sox)"))
    struct AudioCheckTests {
        static func diagnostics(_ server: PulseAudioServer, directory: URL) -> DeviceDiagnostics {
            DeviceDiagnostics(
                configuration: DeviceDiagnosticsConfiguration(
                    audioSystem: PulseAudioSystem(server: server.address), recordingDirectory: directory))
        }

        @Test func listsTheServersDevicesWithTheirDefaults() async throws {
            let server = try await PulseAudioServer.start()
            defer { server.stop() }
            let devices = try await Self.diagnostics(server, directory: FileManager.default.temporaryDirectory).audioDevices()
            let speaker = try #require(devices.first { $0.id == PulseAudioServer.sink })
            #expect(speaker.kind == .output)
            #expect(speaker.isDefault)
            let monitor = try #require(devices.first { $0.id == PulseAudioServer.monitor })
            #expect(monitor.kind == .input)
            #expect(monitor.monitorOf == PulseAudioServer.sink)
            #expect(monitor.isDefault)
            let silent = try #require(devices.first { $0.id == PulseAudioServer.silentSource })
            #expect(silent.kind == .input && !silent.isDefault && silent.monitorOf == nil)
            #expect(devices.allSatisfy { $0.sampleRate > 0 && $0.channels > 0 })
            #expect(try PulseAudioSystem(server: server.address).serverName().hasPrefix("pulseaudio "))
        }

        /// A 1 kHz tone at half scale (−9.03 dBFS RMS) played into the speaker: the microphone check
        /// on its monitor reports that level every second and records the tone, as sox measures it.
        @Test func theMicCheckHearsAKnownTone() async throws {
            let server = try await PulseAudioServer.start()
            defer { server.stop() }
            let directory = try AudioTools.scratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let tone = directory.appendingPathComponent("tone.wav")
            try await AudioTools.soxTone(tone, seconds: 6)
            let player = try AudioTools.play(tone, device: PulseAudioServer.sink, server: server)
            defer { AudioTools.finish(player) }
            #expect(try await AudioTools.waitUntilPlaying(PulseAudioServer.sink, server: server), "paplay never started")
            let reported = Mutex<[Double]>([])
            let result = try await Self.diagnostics(server, directory: directory).micCheck(
                timeInMillis: 3000, device: PulseAudioServer.monitor
            ) { level in reported.withLock { $0.append(level) } }
            print("mic check: device \(result.device), \(result.duration) s, levels \(result.levels) dBFS, peak \(result.peakLevel) dBFS")
            #expect(result.device == PulseAudioServer.monitor)
            #expect(abs(result.duration - 3) < 0.001)
            #expect(!result.stoppedEarly && !result.isSilent)
            #expect(reported.withLock { $0 } == result.levels)
            #expect(result.levels.count == 3)
            #expect(abs(result.peakLevel - 20 * log10(0.5)) < 1)
            // The recording, read by our parser and measured by sox.
            let recording = try AudioTools.samples(result.recordingURL)
            #expect(recording.sampleRate == 48_000 && recording.channels == 1 && recording.frameCount == 144_000)
            // Each second's level is that second of what was recorded; a host too busy to feed
            // the null sink in time leaves gaps that make a second quieter than the tone, never
            // louder (the tone itself is judged between the gaps, below).
            let expected = 20 * log10(0.5 / 2.0.squareRoot())
            for (second, level) in result.levels.enumerated() where recording.samples.count >= (second + 1) * 48_000 {
                let recorded = AudioLevel.decibels(of: recording.samples[second * 48_000..<(second + 1) * 48_000])
                #expect(abs(level - recorded) < 0.01, "second \(second): reported \(level) dBFS, recorded \(recorded) dBFS")
                #expect(level < expected + 1, "second \(second): \(level) dBFS, the tone is \(expected)")
            }
            let estimate = try #require(AudioTools.medianTone(recording.samples, sampleRate: recording.sampleRate, segment: 2_400))
            let sox = try await AudioTools.soxStat(result.recordingURL)
            print("mic check recording: ToneEstimate \(estimate.frequency) Hz, amplitude \(estimate.amplitude); sox \(sox)")
            #expect(abs(estimate.frequency - 1000) < 1)
            #expect(abs(estimate.amplitude - 0.5) < 0.05)
            #expect(abs(sox.frequency - 1000) < 10)
            #expect(abs(sox.maximumAmplitude - 0.5) < 0.05)
        }

        @Test func aMicrophoneThatHearsNothingIsSilent() async throws {
            let server = try await PulseAudioServer.start()
            defer { server.stop() }
            let directory = try AudioTools.scratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let result = try await Self.diagnostics(server, directory: directory).micCheck(
                timeInMillis: 2000, device: PulseAudioServer.silentSource)
            #expect(result.isSilent)
            #expect(result.levels == [AudioLevel.silenceDecibels, AudioLevel.silenceDecibels])
            #expect(result.averageLevel == AudioLevel.silenceDecibels)
        }

        /// The speaker check plays the microphone check's recording: the speaker's monitor, recorded
        /// by parecord, carries the 1 kHz tone at its level.
        @Test func theSpeakerCheckPlaysTheMicChecksRecording() async throws {
            let server = try await PulseAudioServer.start()
            defer { server.stop() }
            let directory = try AudioTools.scratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let diagnostics = Self.diagnostics(server, directory: directory)
            let tone = directory.appendingPathComponent("tone.wav")
            try await AudioTools.soxTone(tone, seconds: 5)
            let player = try AudioTools.play(tone, device: PulseAudioServer.sink, server: server)
            #expect(try await AudioTools.waitUntilPlaying(PulseAudioServer.sink, server: server), "paplay never started")
            let recorded = try await diagnostics.micCheck(timeInMillis: 2000, device: PulseAudioServer.monitor)
            AudioTools.finish(player)
            #expect(diagnostics.lastRecording == recorded.recordingURL)

            let raw = directory.appendingPathComponent("monitor.raw")
            let recorder = try AudioTools.record(raw, device: PulseAudioServer.monitor, server: server)
            #expect(await AudioTools.waitForRecording(raw, seconds: 0.1), "parecord never recorded")
            let played = try await diagnostics.speakerCheck(device: PulseAudioServer.sink)
            // The monitor's last buffers: the recording goes on 0.3 s past the end of playback.
            #expect(await AudioTools.waitForRecording(raw, beyond: AudioTools.size(of: raw), seconds: 0.3))
            AudioTools.finish(recorder)
            let capture = try AudioTools.wav(fromRaw: raw)
            #expect(played.source == .micCheckRecording(recorded.recordingURL))
            #expect(played.device == PulseAudioServer.sink)
            #expect(abs(played.duration - 2) < 0.001 && !played.stoppedEarly)

            let heard = try AudioTools.samples(capture)
            // The loud part: what the monitor heard while the tone played.
            let loud = heard.samples.enumerated().filter { abs(Int($0.element)) > 8000 }.map(\.offset)
            let first = try #require(loud.first), last = try #require(loud.last)
            let tonePart = Array(heard.samples[first...last])
            let estimate = try #require(AudioTools.medianTone(tonePart, sampleRate: heard.sampleRate, segment: 2_400))
            let sox = try await AudioTools.soxStat(capture)
            print(
                "speaker check: \(played.duration) s played at \(played.level) dBFS; the monitor heard \(Double(tonePart.count) / 48_000) s of tone at \(estimate.frequency) Hz, amplitude \(estimate.amplitude); sox \(sox)")
            // All of the 2 s recording was heard, once: a host too busy to feed the null sink in
            // time stretches it with gaps (the median tone below is taken between them).
            #expect(Double(tonePart.count) / 48_000 > 1.9 && Double(tonePart.count) / 48_000 < 3, "\(Double(tonePart.count) / 48_000) s of tone")
            #expect(abs(estimate.frequency - 1000) < 1)
            #expect(abs(estimate.amplitude - 0.5) < 0.05)
            #expect(abs(sox.frequency - 1000) < 20)
            #expect(abs(sox.maximumAmplitude - 0.5) < 0.05)
        }

        /// With no recording, the bundled voice plays; the monitor hears speech-level audio for its length.
        @Test func withoutARecordingTheSpeakerCheckPlaysTheBundledVoice() async throws {
            let server = try await PulseAudioServer.start()
            defer { server.stop() }
            let directory = try AudioTools.scratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let raw = directory.appendingPathComponent("monitor.raw")
            let recorder = try AudioTools.record(raw, device: PulseAudioServer.monitor, server: server)
            #expect(await AudioTools.waitForRecording(raw, seconds: 0.1), "parecord never recorded")
            let played = try await Self.diagnostics(server, directory: directory).speakerCheck()
            AudioTools.finish(recorder)
            let capture = try AudioTools.wav(fromRaw: raw)
            #expect(played.source == .bundledRecording)
            #expect(played.device == PulseAudioServer.sink)
            #expect(played.duration > 5 && played.duration < 6.5)
            let heard = try AudioTools.samples(capture)
            print("bundled voice: \(played.duration) s at \(played.level) dBFS; the monitor heard \(AudioLevel.decibels(of: heard.samples)) dBFS over \(heard.duration) s")
            #expect(played.level > -30)
            #expect(AudioLevel.decibels(of: heard.samples) > -35)
        }

        /// `stopSpeakerCheck()` (100ms's) ends a playing check within about 200 ms: the
        /// completion gets what was played until then, marked as stopped early, well short of the
        /// bundled voice's 5 s and more.
        @Test func stopSpeakerCheckEndsItEarly() async throws {
            let server = try await PulseAudioServer.start()
            defer { server.stop() }
            let directory = try AudioTools.scratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let diagnostics = Self.diagnostics(server, directory: directory)
            let outcome = Mutex<Result<SpeakerCheckResult, PreflightError>?>(nil)
            diagnostics.startSpeakerCheck(device: PulseAudioServer.sink) { result in outcome.withLock { $0 = result } }
            #expect(try await AudioTools.waitUntilPlaying(PulseAudioServer.sink, server: server), "the check never played")
            diagnostics.stopSpeakerCheck()
            #expect(await eventually { outcome.withLock { $0 } != nil }, "no completion")
            let played = try #require(try outcome.withLock { $0 }?.get())
            #expect(played.stoppedEarly)
            #expect(played.source == .bundledRecording)
            #expect(played.duration < 4.5, "\(played.duration) s played")
            // Stopping when none runs does nothing, and the next check may start.
            diagnostics.stopSpeakerCheck()
            let again = try await diagnostics.speakerCheck(device: PulseAudioServer.sink)
            #expect(!again.stoppedEarly)
        }
    }
}

import Foundation
import Preflight
import PreflightCore
import PreflightEdge
import PreflightTesting
import Synchronization
import Testing

/// Real audio in a preflight test and a call (`fakeMicInput` false): a WAV file's audio goes out,
/// its levels and warnings come from its frames, and what comes back reaches the sink.
@Suite(.realTime) struct AudioInputTests {
    /// Keeps what it is given.
    final class RecordingSink: AudioFrameSink {
        let samples = Mutex<[Int16]>([])
        func play(_ samples: [Int16]) { self.samples.withLock { $0 += samples } }
    }

    /// A 1 kHz tone at a quarter of full scale, 16 kHz stereo: mixed to mono and converted to 8 kHz.
    /// Written on a thread of its own: a write ends with an fsync, which a busy disk can hold.
    static func toneFile(seconds: Int = 2) async throws -> URL {
        let rate = 16_000
        let mono = (0..<(rate * seconds)).map { Int16((0.25 * 32767 * sin(2 * Double.pi * 1000 * Double($0) / Double(rate))).rounded()) }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tone-\(UUID().uuidString.prefix(8)).wav")
        let bytes = Data(try WAVFile(sampleRate: rate, channels: 2, samples: mono.flatMap { [$0, $0] }).encoded())
        try await BlockingWork.run("preflight.tone-file") { () -> Result<Void, any Error> in Result { try bytes.write(to: url) } }.get()
        return url
    }

    @Test func aWAVFileIsSentAndItsEchoHeard() async throws {
        let file = try await Self.toneFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let input = try WAVFileAudioSource(url: file)
        #expect(abs(input.duration - 2) < 0.001)
        let sink = RecordingSink()
        let report = try await LocalEdge.withRunning { edge in
            let test = PreflightTest.run(
                options: PreflightOptions(
                    accessToken: try await edge.token(), edgeURL: edge.signalingURL, duration: .seconds(3), fakeMicInput: false,
                    audioInput: input, audioOutput: sink))
            return try await test.result()
        }
        // The levels are the file's: a quarter of full scale, through μ-law.
        let levels = report.statsSamples.dropFirst().map(\.audioInputLevel)
        #expect(!levels.isEmpty)
        for level in levels { #expect(abs(Double(level) - 8192) < 8192 * 0.05, "audioInputLevel \(level)") }
        // The echo came back to the sink: every packet the test received (160 samples each, the
        // last sample's count; a late echo may add more), the tone, at its level.
        let heard = sink.samples.withLock { $0 }
        let received = try #require(report.statsSamples.last?.packetsReceived)
        #expect(received > 0)
        #expect(heard.count >= received * 160, "heard \(heard.count) samples of \(received) packets")
        let tone = try #require(ToneEstimate(samples: heard, sampleRate: 8000))
        #expect(abs(tone.frequency - 1000) < 1)
        #expect(abs(tone.amplitude - 0.25) < 0.02)
    }

    /// A steady tone's level never moves: the constant-audio-input-level warning is raised from
    /// the real frames (the test signal is made to vary, so it never raises it).
    @Test func aSteadyInputRaisesTheConstantInputLevelWarning() async throws {
        let file = try await Self.toneFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let report = try await LocalEdge.withRunning { edge in
            let test = PreflightTest.run(
                options: PreflightOptions(
                    accessToken: try await edge.token(), edgeURL: edge.signalingURL, duration: .seconds(12), fakeMicInput: false,
                    audioInput: try WAVFileAudioSource(url: file)))
            return try await test.result()
        }
        #expect(report.warnings.contains { $0.name == QualityWarning.constantAudioInputLevel.rawValue }, "\(report.warnings)")
    }

    @Test func noInputWithoutTheFakeMicrophoneIs70005() async throws {
        await #expect(throws: PreflightError.self) {
            try await PreflightTest.run(options: PreflightOptions(accessToken: "a.b.c", fakeMicInput: false)).result()
        }
        do {
            _ = try await PreflightTest.run(options: PreflightOptions(accessToken: "a.b.c", fakeMicInput: false)).result()
        } catch {
            #expect(error.code == .invalidArgument)
        }
    }

    /// In a call the caller's file reaches the callee's sink through the bridge; on hold the
    /// callee's sink gets nothing more.
    @Test func aCallCarriesTheFileAndHoldSilencesPlayback() async throws {
        let file = try await Self.toneFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let sink = RecordingSink()
        try await CallHarness.withEdge { harness in
            let connected = try await harness.connectedCall(
                callerOptions: CallOptions(fakeMicInput: false, audioInput: try WAVFileAudioSource(url: file)),
                calleeOptions: CallOptions(audioOutput: sink))
            let callee = connected.callee
            // A second of the caller's file reached the callee's sink: the tone.
            #expect(await eventually { sink.samples.withLock { $0.count } >= 8000 }, "heard \(sink.samples.withLock { $0.count }) samples")
            let heard = sink.samples.withLock { $0 }
            let tone = try #require(ToneEstimate(samples: Array(heard.suffix(8000)), sampleRate: 8000))
            #expect(abs(tone.frequency - 1000) < 1)
            func received() -> Int { callee.getStats()?.remoteAudioTrackStats.first?.packetsReceived ?? 0 }
            callee.setOnHold(true)
            // Packets are received one at a time: once two more arrived, a frame that was being
            // played as the hold began has landed, and nothing after it may.
            let packetsAtHold = received()
            #expect(await eventually { received() > packetsAtHold + 2 })
            let atHold = sink.samples.withLock { $0.count }
            // The caller's audio goes on arriving on hold (half a second of it), and none plays.
            let packetsThen = received()
            #expect(await eventually { received() >= packetsThen + 25 }, "packets received on hold: \(received() - packetsThen)")
            #expect(sink.samples.withLock { $0.count } == atHold, "audio played while on hold")
            connected.caller.disconnect()
            connected.callee.disconnect()
        }
    }
}

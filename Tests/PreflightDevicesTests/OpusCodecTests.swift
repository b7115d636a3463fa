import Foundation
import PreflightCore
import PreflightOpus
import PreflightTesting
import Testing

/// The Opus codec: a tone through our encoder and decoder, our payloads read by an outside
/// decoder (PyPI opuslib, which binds the same libopus through its C API, not our code), and
/// hostile payloads.
@Suite(.enabled(if: ExternalTool.isCI || OpusCodec.isAvailable, "needs a build with libopus-dev (apt-get install libopus-dev)"))
struct OpusCodecTests {
    static func tone(frames: Int, frequency: Double = 1000, amplitude: Double = 0.5) -> [Int16] {
        (0..<(frames * OpusCodec.frameSamples)).map { Int16((amplitude * 32767 * sin(2 * Double.pi * frequency * Double($0) / 48_000)).rounded()) }
    }

    static func encode(_ pcm: [Int16]) throws -> [[UInt8]] {
        let encoder = try OpusEncoder()
        return try stride(from: 0, to: pcm.count, by: OpusCodec.frameSamples).map { start in
            try encoder.encode(Array(pcm[start..<start + OpusCodec.frameSamples]))
        }
    }

    @Test func aToneSurvivesTheCodec() throws {
        let payloads = try Self.encode(Self.tone(frames: 50))
        #expect(payloads.allSatisfy { !$0.isEmpty && $0.count <= OpusCodec.maximumPayloadBytes })
        let decoder = try OpusDecoder()
        var decoded: [Int16] = []
        for payload in payloads {
            let frame = try decoder.decode(payload)
            #expect(frame.count == OpusCodec.frameSamples)
            decoded += frame
        }
        // The codec's start-up transient left out.
        let tone = try #require(ToneEstimate(samples: Array(decoded.dropFirst(4800)), sampleRate: 48_000))
        print("Opus: 50 frames, \(payloads.map(\.count).reduce(0, +)) bytes (\(payloads.map(\.count).reduce(0, +) * 8) bit/s), decoded \(tone.frequency) Hz at \(tone.amplitude)")
        #expect(abs(tone.frequency - 1000) < 1)
        #expect(abs(tone.amplitude - 0.5) < 0.05)
        // A lost frame is concealed: 20 ms of audio, no error.
        #expect(try decoder.decode([]).count == OpusCodec.frameSamples)
    }

    /// opuslib decodes the RTP payloads our encoder made: the tone, at 1 kHz.
    @Test(.enabled(if: ExternalTool.canRun(needing: "python3"), "needs python3 and PyPI opuslib"))
    func anOutsideDecoderReadsOurPayloads() async throws {
        let result = try await OutsideOpusDecoder.decode(try Self.encode(Self.tone(frames: 50)))
        print("opuslib decoded: \(result)")
        #expect(result.samples == 50 * OpusCodec.frameSamples)
        #expect(abs(result.frequency - 1000) < 2)
        #expect(abs(result.amplitude - 0.5) < 0.05)
    }

    /// A fullband stream decodes straight to 8 kHz (the SDK's audio path) and from 8 kHz input,
    /// the tone intact; rates libopus does not offer are 70005.
    @Test func lowerRatesInAndOut() throws {
        let decoder = try OpusDecoder(sampleRate: 8000)
        #expect(decoder.frameSamples == 160)
        var decoded: [Int16] = []
        for payload in try Self.encode(Self.tone(frames: 50)) { decoded += try decoder.decode(payload) }
        #expect(decoded.count == 50 * 160)
        let tone = try #require(ToneEstimate(samples: Array(decoded.dropFirst(800)), sampleRate: 8000))
        #expect(abs(tone.frequency - 1000) < 1)
        #expect(abs(tone.amplitude - 0.5) < 0.05)
        #expect(try decoder.decode([]).count == 160)

        let encoder = try OpusEncoder(sampleRate: 8000)
        let narrow = (0..<(50 * 160)).map { Int16((0.5 * 32767 * sin(2 * Double.pi * 1000 * Double($0) / 8000)).rounded()) }
        let wide = try OpusDecoder()
        var widened: [Int16] = []
        for start in stride(from: 0, to: narrow.count, by: 160) { widened += try wide.decode(try encoder.encode(Array(narrow[start..<start + 160]))) }
        #expect(widened.count == 50 * 960)
        let wideTone = try #require(ToneEstimate(samples: Array(widened.dropFirst(4800)), sampleRate: 48_000))
        #expect(abs(wideTone.frequency - 1000) < 1)
        for rate in [0, 44_100, 96_000, -8000] {
            #expect(throws: PreflightError.self) { try OpusEncoder(sampleRate: rate) }
            #expect(throws: PreflightError.self) { try OpusDecoder(sampleRate: rate) }
        }
    }

    @Test func hostilePayloadsAreCodedErrorsOrAudio() throws {
        let decoder = try OpusDecoder()
        #expect(throws: PreflightError.self) { try decoder.decode([UInt8](repeating: 0xFF, count: OpusCodec.maximumPayloadBytes + 1)) }
        var generator = SystemRandomNumberGenerator()
        for size in [1, 2, 3, 10, 100, 1275, 1500] {
            for _ in 0..<20 {
                let payload = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
                do {
                    let pcm = try decoder.decode(payload)
                    #expect(pcm.count <= OpusCodec.maximumDecodedSamples)
                } catch {
                    #expect(error.code == .malformed || error.code == .invalidArgument, "\(error)")
                }
            }
        }
        // A code-3 packet that claims 48 frames of 20 ms (960 ms, over Opus's 120 ms) is invalid.
        #expect(throws: PreflightError.self) { try decoder.decode([0x0B << 3 | 3, 48]) }
        #expect(throws: PreflightError.self) { try OpusEncoder().encode([1, 2, 3]) }
        #expect(throws: PreflightError.self) { try OpusEncoder(channels: 3) }
    }
}

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
    func anOutsideDecoderReadsOurPayloads() throws {
        let payloads = try Self.encode(Self.tone(frames: 50))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("opus-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Length-prefixed payloads, as they would stand in RTP packets one by one.
        var bytes: [UInt8] = []
        for payload in payloads { bytes += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload }
        let file = directory.appendingPathComponent("payloads.bin")
        try Data(bytes).write(to: file)
        let script = """
            import sys, struct, math, opuslib
            data = open(sys.argv[1], 'rb').read()
            decoder = opuslib.Decoder(48000, 1)
            pcm = b''
            pos = 0
            while pos < len(data):
                n = struct.unpack('>H', data[pos:pos + 2])[0]
                pcm += decoder.decode(data[pos + 2:pos + 2 + n], 960)
                pos += 2 + n
            s = struct.unpack('<%dh' % (len(pcm) // 2), pcm)[4800:]
            ups = [i for i in range(1, len(s)) if s[i - 1] < 0 <= s[i]]
            freq = (len(ups) - 1) * 48000 / (ups[-1] - ups[0])
            rms = math.sqrt(sum(x * x for x in s) / len(s)) / 32768
            print('%d %.3f %.4f' % (len(pcm) // 2, freq, rms * math.sqrt(2)))
            """
        let output = try ExternalTool.run("python3", ["-c", script, file.path]).split(separator: " ")
        print("opuslib decoded: \(output)")
        #expect(output.count == 3)
        #expect(Int(output[0]) == 50 * OpusCodec.frameSamples)
        #expect(abs((Double(output[1]) ?? 0) - 1000) < 2)
        #expect(abs((Double(output[2].trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 0.5) < 0.05)
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

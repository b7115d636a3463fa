import Foundation
@testable import PreflightCore
import PreflightTesting
import Testing

@Suite struct WAVFileTests {
    static func sine(frequency: Double, rate: Int, count: Int, amplitude: Double = 0.5) -> [Int16] {
        (0..<count).map { Int16((amplitude * 32767 * sin(2 * Double.pi * frequency * Double($0) / Double(rate))).rounded()) }
    }

    @Test func encodesTheCanonicalHeaderAndRoundTrips() throws {
        let file = WAVFile(sampleRate: 48_000, channels: 2, samples: [1, -1, 32767, -32768, 0, 256])
        let bytes = try file.encoded()
        #expect(bytes.count == 44 + 12)
        #expect(Array(bytes[0..<4]) == Array("RIFF".utf8) && Array(bytes[8..<16]) == Array("WAVEfmt ".utf8))
        // RIFF size, fmt size 16, PCM, 2 channels, 48 kHz, byte rate, block align 4, 16 bits, data size.
        #expect(Array(bytes[4..<8]) == [48, 0, 0, 0])
        #expect(Array(bytes[16..<36]) == [16, 0, 0, 0, 1, 0, 2, 0, 0x80, 0xBB, 0, 0, 0, 0xEE, 2, 0, 4, 0, 16, 0])
        #expect(Array(bytes[36..<44]) == Array("data".utf8) + [12, 0, 0, 0])
        #expect(Array(bytes[44..<48]) == [1, 0, 0xFF, 0xFF])
        #expect(try WAVFile(parsing: bytes) == file)
        #expect(file.frameCount == 3 && file.monoSamples == [0, 0, 128])
    }

    /// Files written by sox, an independent writer, parse to the samples sox says they hold.
    @Test(.enabled(if: ExternalTool.canRun(needing: "sox"), "needs sox (apt-get install sox)"))
    func readsWhatSoxWrites() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wav-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("tone.wav")
        _ = try await ExternalTool.run("sox", ["-n", "-r", "16000", "-c", "2", "-b", "16", url.path, "synth", "0.5", "sine", "440", "vol", "0.25"])
        let file = try WAVFile(parsing: Array(Data(contentsOf: url)))
        #expect(file.sampleRate == 16_000 && file.channels == 2 && file.frameCount == 8000)
        let tone = try #require(ToneEstimate(samples: file.monoSamples, sampleRate: file.sampleRate))
        #expect(abs(tone.frequency - 440) < 0.5)
        #expect(abs(tone.amplitude - 0.25) < 0.01)
        // And sox reads what we write: its length and rate.
        let ours = directory.appendingPathComponent("ours.wav")
        try Data(try WAVFile(sampleRate: 8000, samples: Self.sine(frequency: 1000, rate: 8000, count: 4000)).encoded()).write(to: ours)
        var info: [String] = []
        for option in ["-r", "-s", "-c", "-b"] {
            info.append(try await ExternalTool.run("soxi", [option, ours.path]).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(info == ["8000", "4000", "1", "16"])
    }

    @Test func skipsUnknownChunksWithTheirPaddingAndReadsExtensiblePCM() throws {
        var bytes = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVE".utf8)
        bytes += Array("LIST".utf8) + [3, 0, 0, 0] + Array("abc".utf8) + [0]  // odd size, one pad byte
        bytes += Array("fmt ".utf8) + [40, 0, 0, 0] + [0xFE, 0xFF, 1, 0, 0x40, 0x1F, 0, 0, 0x80, 0x3E, 0, 0, 2, 0, 16, 0]
        bytes += [22, 0, 16, 0, 4, 0, 0, 0] + [1, 0] + Array(repeating: 0, count: 14)
        bytes += Array("data".utf8) + [4, 0, 0, 0, 0x34, 0x12, 0xCC, 0xED]
        let file = try WAVFile(parsing: bytes)
        #expect(file == WAVFile(sampleRate: 8000, channels: 1, samples: [0x1234, -0x1234]))
    }

    /// A writer that never fixed its sizes up (0xFFFFFFFF) leaves the data to the end of the file.
    @Test func aDataChunkLongerThanTheFileTakesWhatIsThere() throws {
        var bytes = try WAVFile(sampleRate: 8000, samples: [5, 6, 7]).encoded()
        bytes.replaceSubrange(40..<44, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(try WAVFile(parsing: bytes).samples == [5, 6, 7])
        bytes.append(9)  // an odd byte at the end is not half a sample
        #expect(try WAVFile(parsing: bytes).samples == [5, 6, 7])
    }

    static let valid: [UInt8] = (try? WAVFile(sampleRate: 8000, samples: [1, 2]).encoded()) ?? []

    static func changed(_ offset: Int, _ bytes: [UInt8]) -> [UInt8] {
        var copy = valid
        copy.replaceSubrange(offset..<offset + bytes.count, with: bytes)
        return copy
    }

    @Test(arguments: [
        (Array(valid.prefix(3)), 70001),  // cut in the RIFF tag
        (Array(valid.prefix(30)), 70001),  // cut in the fmt chunk
        (Array(valid.prefix(40)), 70001),  // cut in the data chunk's header
        (changed(0, Array("RIFX".utf8)), 70002),  // big-endian RIFF is not read
        (changed(8, Array("AVI ".utf8)), 70002),
        (changed(12, Array("junk".utf8)), 70002),  // no fmt chunk before data: "data chunk before the fmt chunk" cannot happen, none at all
        (changed(22, [0, 0]), 70002),  // 0 channels
        (changed(22, [9, 0]), 70002),  // 9 channels
        (changed(24, [0, 0, 0, 0]), 70002),  // 0 Hz
        (changed(24, [0xFF, 0xFF, 0xFF, 0xFF]), 70002),  // 4 GHz
        (changed(32, [3, 0]), 70002),  // block align that does not fit 1 × 16 bits
        (changed(34, [8, 0]), 70404),  // 8-bit samples
        (changed(20, [3, 0]), 70404),  // IEEE float
        (changed(20, [7, 0]), 70404),  // μ-law
        (changed(36, Array("fact".utf8)), 70002),  // no data chunk
        (changed(16, [0xFF, 0xFF, 0xFF, 0x7F]), 70001),  // a fmt chunk longer than the file
        ([UInt8](), 70001),
    ] as [([UInt8], Int)])
    func hostileFilesAreCodedErrors(bytes: [UInt8], code: Int) {
        #expect(throws: PreflightError.self) { try WAVFile(parsing: bytes) }
        do {
            _ = try WAVFile(parsing: bytes)
        } catch {
            #expect(error.code.rawValue == code, "\(error)")
        }
    }

    @Test func theWriterRefusesWhatTheReaderWouldNotRead() {
        for file in [
            WAVFile(sampleRate: 1000, samples: [1]), WAVFile(sampleRate: 8000, channels: 0, samples: [1]),
            WAVFile(sampleRate: 8000, channels: 9, samples: [1]),
        ] {
            #expect(throws: PreflightError.self) { try file.encoded() }
        }
    }
}

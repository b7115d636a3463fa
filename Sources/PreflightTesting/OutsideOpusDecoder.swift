import Foundation
import PreflightCore

/// An Opus decoder that is not ours: PyPI `opuslib` (ctypes over libopus' C API) in `python3`,
/// to check that the payloads Preflight puts in RTP packets are Opus as anyone reads them.
public enum OutsideOpusDecoder {
    /// What it heard.
    public struct Result: Sendable, CustomStringConvertible {
        /// Samples decoded at 48 kHz.
        public var samples: Int
        /// The tone's frequency (Hz) from zero crossings, the first 100 ms left out.
        public var frequency: Double
        /// Its amplitude, 0…1 of full scale (RMS · √2).
        public var amplitude: Double

        /// The three figures in a line.
        public var description: String { "\(samples) samples, \(frequency) Hz, amplitude \(amplitude)" }
    }

    static let script = """
        import sys, struct, math, opuslib
        data = sys.stdin.buffer.read()
        decoder = opuslib.Decoder(48000, 1)
        pcm = b''
        pos = 0
        while pos < len(data):
            n = struct.unpack('>H', data[pos:pos + 2])[0]
            pcm += decoder.decode(data[pos + 2:pos + 2 + n], 960)
            pos += 2 + n
        s = struct.unpack('<%dh' % (len(pcm) // 2), pcm)[4800:]
        ups = [i for i in range(1, len(s)) if s[i - 1] < 0 <= s[i]]
        freq = (len(ups) - 1) * 48000 / (ups[-1] - ups[0]) if len(ups) > 1 else 0
        rms = math.sqrt(sum(x * x for x in s) / max(1, len(s))) / 32768
        print('%d %.3f %.4f' % (len(pcm) // 2, freq, rms * math.sqrt(2)))
        """

    /// Decodes `payloads` (one RTP payload each, in order) and measures the tone in them.
    /// - Throws: ``PreflightError`` when python3 or opuslib is missing or its answer is not three numbers.
    public static func decode(_ payloads: [[UInt8]]) async throws(PreflightError) -> Result {
        // Length-prefixed payloads, as they stand in RTP packets one by one.
        var input: [UInt8] = []
        for payload in payloads { input += [UInt8(truncatingIfNeeded: payload.count >> 8), UInt8(truncatingIfNeeded: payload.count)] + payload }
        let output = try await ExternalTool.run("python3", ["-c", script], standardInput: input)
        let fields = output.split(whereSeparator: \.isWhitespace)
        guard fields.count == 3, let samples = Int(fields[0]), let frequency = Double(fields[1]), let amplitude = Double(fields[2]) else {
            throw PreflightError(code: .malformed, message: "opuslib answered \(UntrustedText.quoted(output))")
        }
        return Result(samples: samples, frequency: frequency, amplitude: amplitude)
    }
}

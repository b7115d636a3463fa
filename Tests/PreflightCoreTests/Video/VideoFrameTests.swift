import Crypto
import Foundation
@testable import PreflightCore
import PreflightTesting
import Testing

@Suite struct VideoFrameTests {
    /// A 4 × 2 YUYV frame: luma from every byte pair, chroma from the even row.
    @Test func yuyvBecomesI420() throws {
        let bytes: [UInt8] = [
            10, 100, 11, 200, 12, 101, 13, 201,  // row 0: Y0 U Y1 V, Y2 U Y3 V
            20, 110, 21, 210, 22, 111, 23, 211,  // row 1 (its chroma is dropped at 4:2:0)
        ]
        let frame = try VideoFrame(converting: bytes, format: .yuyv, width: 4, height: 2, timestamp: 1.5)
        #expect(frame.luma == [10, 11, 12, 13, 20, 21, 22, 23])
        #expect(frame.chromaBlue == [100, 101] && frame.chromaRed == [200, 201])
        #expect(frame.timestamp == 1.5)
        // With a padded stride (8 bytes of row, 4 of padding).
        let padded = Array(bytes[0..<8]) + [0, 0, 0, 0] + Array(bytes[8..<16])
        #expect(try VideoFrame(converting: padded, format: .yuyv, width: 4, height: 2, bytesPerLine: 12, timestamp: 1.5) == frame)
    }

    @Test func nv12AndI420AreTheSamePicture() throws {
        let luma: [UInt8] = Array(0..<16)
        let blue: [UInt8] = [100, 101, 102, 103], red: [UInt8] = [200, 201, 202, 203]
        let i420 = try VideoFrame(converting: luma + blue + red, format: .i420, width: 4, height: 4)
        let nv12 = try VideoFrame(converting: luma + zip(blue, red).flatMap { [$0, $1] }, format: .nv12, width: 4, height: 4)
        #expect(i420 == nv12)
        #expect(i420.luma == luma && i420.chromaBlue == blue && i420.chromaRed == red)
    }

    /// RGB → YUV → RGB comes back within the rounding of limited-range BT.601.
    @Test(arguments: [(0, 0, 0), (255, 255, 255), (255, 0, 0), (0, 255, 0), (0, 0, 255), (120, 60, 200)] as [(UInt8, UInt8, UInt8)])
    func rgbRoundTrips(red: UInt8, green: UInt8, blue: UInt8) throws {
        let frame = try VideoFrame(converting: [red, green, blue, red, green, blue] + [red, green, blue, red, green, blue], format: .rgb24, width: 2, height: 2)
        let back = frame.rgb()
        for (channel, expected) in [red, green, blue].enumerated() {
            #expect(abs(Int(back[channel]) - Int(expected)) <= 3, "channel \(channel): \(back[channel]) for \(expected)")
        }
    }

    @Test func shortBuffersAndBadSizesAreCodedErrors() {
        #expect(throws: PreflightError.self) { try VideoFrame(converting: [UInt8](repeating: 0, count: 15), format: .yuyv, width: 4, height: 2) }
        #expect(throws: PreflightError.self) { try VideoFrame(converting: [UInt8](repeating: 0, count: 23), format: .i420, width: 4, height: 4) }
        for (width, height) in [(0, 4), (4, 0), (-1, 4), (8193, 4), (Int.max, Int.max)] {
            #expect(throws: PreflightError.self) { try VideoFrame(converting: [UInt8](), format: .i420, width: width, height: height) }
        }
        // A stride narrower than a row.
        #expect(throws: PreflightError.self) { try VideoFrame(converting: [UInt8](repeating: 0, count: 64), format: .yuyv, width: 4, height: 2, bytesPerLine: 6) }
        do {
            _ = try VideoFrame(converting: [UInt8](repeating: 0, count: 15), format: .yuyv, width: 4, height: 2)
        } catch {
            #expect(error.code == .truncated)
        }
    }

    static func moving(_ n: Int, width: Int = 64, height: Int = 48) throws -> VideoFrame {
        let luma = (0..<(width * height)).map { UInt8(16 + (($0 % width) * 3 + ($0 / width) + n * 9) % 200) }
        let chroma = [UInt8](repeating: 128, count: (width / 2) * (height / 2))
        return try VideoFrame(width: width, height: height, luma: luma, chromaBlue: chroma, chromaRed: chroma, timestamp: Double(n) / 30)
    }

    @Test func ssimIsOneForTheSameFrameAndLowForAMovedOne() throws {
        let frame = try Self.moving(0)
        #expect(frame.structuralSimilarity(to: frame) == 1)
        let next = try Self.moving(1)
        #expect(frame.structuralSimilarity(to: next) < 0.985)
        // Sensor noise of ±1 on a still picture is still "the same" (frozen).
        var noisy = frame
        noisy.luma = frame.luma.enumerated().map { UInt8(Int($0.element) + ($0.offset % 3 - 1)) }
        #expect(frame.structuralSimilarity(to: noisy) > 0.985)
        #expect(frame.structuralSimilarity(to: try VideoFrame.filled(width: 32, height: 48, luma: 16)) == 0)
    }

    @Test func blackIsNoLumaAbove20() throws {
        #expect(try VideoFrame.filled(width: 8, height: 8, luma: 16).isBlack())
        var frame = try VideoFrame.filled(width: 8, height: 8, luma: 20)
        #expect(frame.isBlack())
        frame.luma[63] = 21
        #expect(!frame.isBlack())
        #expect(frame.maximumLuma == 21)
    }

    /// The PNG is read back by ffprobe and by a zlib inflate in Python: its size and pixels.
    @Test(.enabled(if: ExternalTool.canRun(needing: "ffprobe", "python3"), "needs ffmpeg's ffprobe and python3"))
    func pngsAreReadByOtherDecoders() async throws {
        let frame = try Self.moving(3, width: 320, height: 240)
        let rgb = frame.rgb()
        let png = try PNGImage.encode(rgb: rgb, width: 320, height: 240)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("frame-\(UUID().uuidString.prefix(8)).png")
        try Data(png).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let probe = try await ExternalTool.run("ffprobe", ["-v", "error", "-show_entries", "stream=width,height,codec_name,pix_fmt", "-of", "csv=p=0", url.path])
        #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "png,320,240,rgb24")
        let script = """
            import sys, zlib, struct, hashlib
            data = open(sys.argv[1], 'rb').read()
            pos, idat = 8, b''
            while pos < len(data):
                length, kind = struct.unpack('>I4s', data[pos:pos + 8])
                body = data[pos + 8:pos + 8 + length]
                assert zlib.crc32(kind + body) == struct.unpack('>I', data[pos + 8 + length:pos + 12 + length])[0]
                if kind == b'IDAT': idat += body
                pos += 12 + length
            raw = zlib.decompress(idat)
            rows = [raw[r * 961 + 1:(r + 1) * 961] for r in range(240)]
            print(hashlib.sha256(b''.join(rows)).hexdigest())
            """
        let digest = try await ExternalTool.run("python3", ["-c", script, url.path]).trimmingCharacters(in: .whitespacesAndNewlines)
        let expected = SHA256.hash(data: rgb).map { String(format: "%02x", $0) }.joined()
        #expect(digest == expected)
    }
}

/// A PNG file of an 8-bit RGB image (the camera check's snapshot), written without a compression
/// library: the image data goes in stored (uncompressed) deflate blocks, which every PNG reader
/// reads. A 640 × 480 snapshot is about 922 KB.
public enum PNGImage {
    /// The PNG bytes of `rgb` (3 bytes a pixel, rows top to bottom).
    /// - Throws: ``PreflightError`` `invalidArgument` (70005) when `rgb` does not hold
    ///   `width × height` pixels or a size is out of range.
    public static func encode(rgb: [UInt8], width: Int, height: Int) throws(PreflightError) -> [UInt8] {
        guard (1...VideoFrame.maximumDimension).contains(width), (1...VideoFrame.maximumDimension).contains(height),
            rgb.count == width * height * 3
        else {
            throw PreflightError(code: .invalidArgument, message: "PNG: \(rgb.count) bytes are not a \(width)×\(height) RGB image")
        }
        // Each row starts with filter type 0 (none).
        var raw = [UInt8]()
        raw.reserveCapacity((width * 3 + 1) * height)
        for row in 0..<height {
            raw.append(0)
            raw.append(contentsOf: rgb[(row * width * 3)..<((row + 1) * width * 3)])
        }
        var zlib: [UInt8] = [0x78, 0x01]  // deflate, 32 KiB window, no preset dictionary
        var offset = 0
        repeat {
            let count = min(65_535, raw.count - offset)
            let final: UInt8 = offset + count == raw.count ? 1 : 0
            zlib.append(final)  // BFINAL, BTYPE 00 (stored)
            zlib.append(contentsOf: [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)])
            zlib.append(contentsOf: raw[offset..<offset + count])
            offset += count
        } while offset < raw.count
        zlib.append(contentsOf: bigEndian(adler32(raw)))
        var header = bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        header += [8, 2, 0, 0, 0]  // 8 bits, truecolour, deflate, adaptive filters, no interlace
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", zlib) + chunk("IEND", [])
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }

    static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}

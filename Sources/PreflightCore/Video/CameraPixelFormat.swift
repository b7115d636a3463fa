/// The pixel formats Preflight converts from, by their V4L2 four-character codes.
public enum CameraPixelFormat: UInt32, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// YUYV 4:2:2, packed (Y0 U Y1 V): what most USB webcams deliver uncompressed.
    case yuyv = 0x5659_5559  // 'YUYV'
    /// NV12: a luma plane, then interleaved U and V at 4:2:0.
    case nv12 = 0x3231_564E  // 'NV12'
    /// I420 (V4L2's YU12): luma, then U, then V planes at 4:2:0; ffmpeg's `yuv420p`.
    case i420 = 0x3231_5559  // 'YU12'
    /// RGB, 3 bytes a pixel (V4L2's RGB3).
    case rgb24 = 0x3342_4752  // 'RGB3'

    /// The four characters, e.g. "YUYV"; for any code, printable or not.
    public static func name(of fourCC: UInt32) -> String {
        String(
            decoding: (0..<4).map { shift -> UInt8 in
                let byte = UInt8(truncatingIfNeeded: fourCC >> (8 * UInt32(shift)))
                return (0x20...0x7E).contains(byte) ? byte : UInt8(ascii: "?")
            }, as: UTF8.self)
    }

    /// The four characters.
    public var description: String { Self.name(of: rawValue) }

    /// Bytes of a tightly packed frame of `width` × `height`.
    public func frameSize(width: Int, height: Int) -> Int {
        switch self {
        case .yuyv: return ((width + 1) / 2) * 4 * height
        case .nv12, .i420: return width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
        case .rgb24: return width * height * 3
        }
    }

    /// The smallest row stride of this format at `width`, bytes.
    public func minimumBytesPerLine(width: Int) -> Int {
        switch self {
        case .yuyv: return ((width + 1) / 2) * 4
        case .nv12, .i420: return width
        case .rgb24: return width * 3
        }
    }
}

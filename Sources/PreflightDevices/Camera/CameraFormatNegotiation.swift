import PreflightCore

/// Chooses what to ask a camera for, from what it says it offers: a format Preflight converts
/// (uncompressed YUYV, NV12, I420 or RGB24, in that order of preference) at the size closest to
/// the one requested. Pure: V4L2Camera feeds it the device's enumeration.
struct CameraFormatNegotiation {
    /// What the device offers: each pixel format (four-character code) with its sizes.
    var offered: [(fourCC: UInt32, sizes: [(width: Int, height: Int)])]

    /// The choice, or a `deviceFormatUnsupported` (70404) error naming what the camera offers
    /// when none of its formats is one Preflight converts (MJPEG-only cameras, for now).
    func choose(width: Int, height: Int) throws(PreflightError) -> (format: CameraPixelFormat, width: Int, height: Int) {
        let preference: [CameraPixelFormat] = [.yuyv, .nv12, .i420, .rgb24]
        for format in preference {
            guard let entry = offered.first(where: { $0.fourCC == format.rawValue }) else { continue }
            guard let size = Self.closest(entry.sizes, width: width, height: height) else {
                // No size listed (a driver that only takes S_FMT): ask for the requested one.
                return (format, width, height)
            }
            return (format, size.width, size.height)
        }
        let names = offered.map { CameraPixelFormat.name(of: $0.fourCC) }.joined(separator: ", ")
        throw PreflightError(
            code: .deviceFormatUnsupported,
            message: "the camera offers \(names.isEmpty ? "no format" : names); Preflight reads YUYV, NV12, YU12 or RGB3")
    }

    /// The size that is exactly the request, else the smallest at least as large as it both ways,
    /// else the largest.
    static func closest(_ sizes: [(width: Int, height: Int)], width: Int, height: Int) -> (width: Int, height: Int)? {
        let valid = sizes.filter { $0.width > 0 && $0.height > 0 }
        if let exact = valid.first(where: { $0.width == width && $0.height == height }) { return exact }
        let larger = valid.filter { $0.width >= width && $0.height >= height }
        if let smallest = larger.min(by: { $0.width * $0.height < $1.width * $1.height }) { return smallest }
        return valid.max(by: { $0.width * $0.height < $1.width * $1.height })
    }
}

public import PreflightModel
import Synchronization

/// Frames made in code for a connectivity check without a camera: a luma ramp with a bright bar
/// that moves every frame (so the pictures differ as a live camera's do), 30 fps. It says so in
/// its ``name``; the device report marks the camera `notTested`.
public final class TestPatternVideoSource: VideoFrameSource {
    /// `"synthetic testsrc"`.
    public var name: String { "synthetic testsrc" }
    /// `false`: no camera.
    public var isCamera: Bool { false }
    let width: Int
    let height: Int
    private let origin = ContinuousClock.now
    private let cache = Mutex<(index: Int, frame: VideoFrame)?>(nil)

    /// Creates a source of `width`×`height` pictures (320×180 by default: the frames are only
    /// sampled into the stream's packets).
    public init(width: Int = 320, height: Int = 180) {
        self.width = max(16, min(width, 1920))
        self.height = max(16, min(height, 1080))
    }

    /// Nothing to open.
    public func start() async throws(PreflightError) {}

    /// The picture of the current 1/30 s.
    public func latestVideoFrame() -> VideoFrame? {
        let index = Int(((ContinuousClock.now - origin) / .milliseconds(1)) / 1000 * 30)
        if let cached = cache.withLock({ $0 }), cached.index == index { return cached.frame }
        var luma = [UInt8](repeating: 0, count: width * height)
        let bar = (index * 4) % width
        for row in 0..<height {
            for column in 0..<width {
                let ramp = 16 + (column + row + index) % 200
                luma[row * width + column] = UInt8(abs(column - bar) < 8 ? 235 : ramp)
            }
        }
        let chroma = [UInt8](repeating: 128, count: ((width + 1) / 2) * ((height + 1) / 2))
        guard let frame = try? VideoFrame(width: width, height: height, luma: luma, chromaBlue: chroma, chromaRed: chroma) else { return nil }
        cache.withLock { $0 = (index, frame) }
        return frame
    }

    /// Nothing to close.
    public func stop() {}
}

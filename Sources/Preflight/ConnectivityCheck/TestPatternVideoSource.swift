public import PreflightModel
import Synchronization

/// Frames made in code for a connectivity check without a camera: a luma ramp with a bright bar
/// that moves every frame (so the pictures differ as a live camera's do), 30 fps. It says so in
/// its ``name``; the device report marks the camera `notTested`.
///
/// One second of pictures is made once, when the check starts, and played in a loop: the check
/// only samples a frame's bytes into its packets, and making a picture every 1/30 s would cost a
/// device the CPU a real encoder would.
public final class TestPatternVideoSource: VideoFrameSource {
    /// `"synthetic testsrc"`.
    public var name: String { "synthetic testsrc" }
    /// `false`: no camera.
    public var isCamera: Bool { false }
    let width: Int
    let height: Int
    private let origin = ContinuousClock.now
    private let frames = Mutex<[VideoFrame]>([])

    /// The pictures in the loop: one second at 30 fps.
    static let loopLength = 30

    /// Creates a source of `width`×`height` pictures (160×90 by default: the frames are only
    /// sampled into the stream's packets).
    public init(width: Int = 160, height: Int = 90) {
        self.width = max(16, min(width, 1920))
        self.height = max(16, min(height, 1080))
    }

    /// Makes the loop's pictures.
    public func start() async throws(PreflightError) {
        _ = loop()
    }

    /// The picture of the current 1/30 s.
    public func latestVideoFrame() -> VideoFrame? {
        let frames = loop()
        guard !frames.isEmpty else { return nil }
        let index = Int(((ContinuousClock.now - origin) / .milliseconds(1)) / 1000 * 30)
        return frames[max(0, index) % frames.count]
    }

    /// Nothing to close.
    public func stop() {}

    private func loop() -> [VideoFrame] {
        frames.withLock { frames in
            if frames.isEmpty { frames = (0..<Self.loopLength).compactMap(picture) }
            return frames
        }
    }

    private func picture(_ index: Int) -> VideoFrame? {
        let bar = (index * width / Self.loopLength) % width
        var row = [UInt8](repeating: 0, count: width)
        var luma: [UInt8] = []
        luma.reserveCapacity(width * height)
        for line in 0..<height {
            for column in 0..<width {
                row[column] = abs(column - bar) < 4 ? 235 : UInt8(16 + (column + line + index) % 200)
            }
            luma += row
        }
        let chroma = [UInt8](repeating: 128, count: ((width + 1) / 2) * ((height + 1) / 2))
        return try? VideoFrame(width: width, height: height, luma: luma, chromaBlue: chroma, chromaRed: chroma)
    }
}

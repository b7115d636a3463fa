import Foundation
import PreflightCore

/// Frames made in code, paced in real time: a moving pattern (a camera that works), video black,
/// or one picture repeated (a frozen camera). What tests and `preflight camera-check --source`
/// use where there is no camera; it says so in its ``sourceID``.
public final class SyntheticFrameSource: FrameSource {
    /// The picture the source makes.
    public enum Pattern: String, Sendable, CaseIterable {
        /// A luma ramp and a bright bar that move every frame, with colour bars' chroma.
        case moving = "testsrc"
        /// Video black (luma 16).
        case black
        /// The moving pattern's first frame, again and again.
        case frozen
    }

    /// What the frames come from, for results and messages.
    public let sourceID: String
    /// The width asked for.
    public let requestedWidth: Int
    /// The height asked for.
    public let requestedHeight: Int
    private let pattern: Pattern
    private let framesPerSecond: Double
    private let frameLimit: Int?
    private var index = 0
    private var start: ContinuousClock.Instant?

    /// Creates a source.
    /// - Parameters:
    ///   - pattern: the picture.
    ///   - width: pixels, 16…``VideoFrame/maximumDimension``; default 640.
    ///   - height: pixels; default 480.
    ///   - framesPerSecond: default 30.
    ///   - frameLimit: frames before it ends, or `nil` to run until stopped.
    public init(pattern: Pattern, width: Int = 640, height: Int = 480, framesPerSecond: Double = 30, frameLimit: Int? = nil) {
        self.pattern = pattern
        self.sourceID = "synthetic:\(pattern.rawValue)"
        self.requestedWidth = width
        self.requestedHeight = height
        self.framesPerSecond = framesPerSecond.isFinite ? min(240, max(1, framesPerSecond)) : 30
        self.frameLimit = frameLimit
    }

    /// The next frame (see ``FrameSource/nextFrame(stop:)``).
    public func nextFrame(stop: StopSignal) throws(PreflightError) -> VideoFrame? {
        guard (1...VideoFrame.maximumDimension).contains(requestedWidth), (1...VideoFrame.maximumDimension).contains(requestedHeight) else {
            throw PreflightError(code: .invalidArgument, message: "synthetic frames of \(requestedWidth)×\(requestedHeight) are out of range")
        }
        if let frameLimit, index >= frameLimit { return nil }
        let clock = ContinuousClock()
        let start = self.start ?? clock.now
        self.start = start
        // Absolute deadlines, so that the rate holds however long a frame took to make.
        let due = start + .seconds(Double(index) / framesPerSecond)
        while clock.now < due {
            if stop.isStopped { return nil }
            Thread.sleep(forTimeInterval: min(0.01, max(0.0001, (due - clock.now).inSeconds)))
        }
        if stop.isStopped { return nil }
        let timestamp = Double(index) / framesPerSecond
        let frame = try makeFrame(pattern == .frozen ? 0 : index, timestamp: timestamp)
        index += 1
        return frame
    }

    /// Releases the source.
    public func close() {}

    private func makeFrame(_ n: Int, timestamp: Double) throws(PreflightError) -> VideoFrame {
        let width = requestedWidth, height = requestedHeight
        if pattern == .black { return try VideoFrame.filled(width: width, height: height, luma: 16, timestamp: timestamp) }
        var luma = [UInt8](repeating: 0, count: width * height)
        let bar = (n * 8) % max(1, width)
        for row in 0..<height {
            for column in 0..<width {
                let ramp = 16 + ((column + row + n * 4) % 220)
                luma[row * width + column] = abs(column - bar) < 16 ? 235 : UInt8(ramp)
            }
        }
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        var blue = [UInt8](repeating: 128, count: chromaWidth * chromaHeight)
        var red = [UInt8](repeating: 128, count: chromaWidth * chromaHeight)
        for row in 0..<chromaHeight {
            for column in 0..<chromaWidth {
                let band = column * 8 / max(1, chromaWidth)
                blue[row * chromaWidth + column] = UInt8(64 + band * 16)
                red[row * chromaWidth + column] = UInt8(192 - band * 16)
            }
        }
        return try VideoFrame(width: width, height: height, luma: luma, chromaBlue: blue, chromaRed: red, timestamp: timestamp)
    }
}

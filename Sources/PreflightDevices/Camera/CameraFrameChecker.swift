import PreflightCore

/// The camera check's verdicts, frame by frame, as testrtc judges a camera: frames arrive, at
/// what rate, at the size asked for, black (no luma above 20) or frozen (SSIM above 0.985 against
/// the frame before). Pure: frames in, figures out.
struct CameraFrameChecker {
    static let blackThreshold: UInt8 = 20
    static let frozenThreshold = 0.985

    let requestedWidth: Int
    let requestedHeight: Int
    private(set) var frames = 0
    private(set) var blackFrames = 0
    private(set) var frozenFrames = 0
    private(set) var firstTimestamp: Double?
    private(set) var lastTimestamp: Double?
    private(set) var lastFrame: VideoFrame?
    private(set) var sizes: [String: Int] = [:]

    init(requestedWidth: Int, requestedHeight: Int) {
        self.requestedWidth = requestedWidth
        self.requestedHeight = requestedHeight
    }

    mutating func add(_ frame: VideoFrame) {
        frames += 1
        if frame.isBlack(threshold: Self.blackThreshold) { blackFrames += 1 }
        if let lastFrame, frame.structuralSimilarity(to: lastFrame) > Self.frozenThreshold { frozenFrames += 1 }
        firstTimestamp = firstTimestamp ?? frame.timestamp
        lastTimestamp = frame.timestamp
        sizes["\(frame.width)x\(frame.height)", default: 0] += 1
        lastFrame = frame
    }

    /// Frames per second over the frames seen: (frames − 1) / (last − first timestamp).
    var framesPerSecond: Double {
        guard frames > 1, let firstTimestamp, let lastTimestamp, lastTimestamp > firstTimestamp else { return 0 }
        return Double(frames - 1) / (lastTimestamp - firstTimestamp)
    }

    func result(source: String, droppedFrames: Int, stoppedEarly: Bool) -> CameraCheckResult {
        let width = lastFrame?.width ?? 0
        let height = lastFrame?.height ?? 0
        return CameraCheckResult(
            device: source, requestedWidth: requestedWidth, requestedHeight: requestedHeight, width: width, height: height,
            isResolutionAsRequested: frames > 0 && sizes.count == 1 && width == requestedWidth && height == requestedHeight,
            frames: frames, duration: (lastTimestamp ?? 0) - (firstTimestamp ?? 0), framesPerSecond: framesPerSecond,
            droppedFrames: droppedFrames, blackFrames: blackFrames, frozenFrames: frozenFrames,
            isBlack: frames > 0 && blackFrames == frames, isFrozen: frames > 1 && frozenFrames == frames - 1,
            stoppedEarly: stoppedEarly)
    }
}

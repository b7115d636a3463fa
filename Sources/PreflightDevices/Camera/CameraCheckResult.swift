/// What a camera check saw (testrtc's camera verdicts beside 100ms's track).
public struct CameraCheckResult: Sendable, Hashable, Codable {
    /// The camera or source (`/dev/video0`, `synthetic:testsrc`, `pipe`).
    public var device: String
    /// The size asked for.
    public var requestedWidth: Int
    /// The size asked for.
    public var requestedHeight: Int
    /// The frames' size (the last frame's).
    public var width: Int
    /// The frames' size (the last frame's).
    public var height: Int
    /// Whether every frame had the size asked for.
    public var isResolutionAsRequested: Bool
    /// Frames received.
    public var frames: Int
    /// Seconds from the first frame to the last.
    public var duration: Double
    /// Frames per second: (frames − 1) / duration; 0 with fewer than 2 frames.
    public var framesPerSecond: Double
    /// Frames the camera's driver dropped (gaps in its sequence numbers); 0 for other sources.
    public var droppedFrames: Int
    /// Frames with no luma above 20.
    public var blackFrames: Int
    /// Frames whose SSIM against the frame before is above 0.985.
    public var frozenFrames: Int
    /// Whether every frame was black: a covered lens, a camera that delivers nothing.
    public var isBlack: Bool
    /// Whether every frame was the same as the one before: a frozen camera or driver.
    public var isFrozen: Bool
    /// Whether `stopCameraCheck()` ended the check before its duration.
    public var stoppedEarly: Bool

    /// Creates a result.
    public init(
        device: String, requestedWidth: Int, requestedHeight: Int, width: Int, height: Int, isResolutionAsRequested: Bool,
        frames: Int, duration: Double, framesPerSecond: Double, droppedFrames: Int, blackFrames: Int, frozenFrames: Int,
        isBlack: Bool, isFrozen: Bool, stoppedEarly: Bool
    ) {
        self.device = device
        self.requestedWidth = requestedWidth
        self.requestedHeight = requestedHeight
        self.width = width
        self.height = height
        self.isResolutionAsRequested = isResolutionAsRequested
        self.frames = frames
        self.duration = duration
        self.framesPerSecond = framesPerSecond
        self.droppedFrames = droppedFrames
        self.blackFrames = blackFrames
        self.frozenFrames = frozenFrames
        self.isBlack = isBlack
        self.isFrozen = isFrozen
        self.stoppedEarly = stoppedEarly
    }
}

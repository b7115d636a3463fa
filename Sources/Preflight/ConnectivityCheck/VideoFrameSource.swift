public import PreflightModel

/// Where a connectivity check's video comes from: a camera (PreflightDevices'
/// `CameraVideoSource`), or, when none is given, Preflight's ``TestPatternVideoSource``.
///
/// The check asks for the newest picture every frame interval, on its own schedule: return what
/// is there at once, never block.
public protocol VideoFrameSource: Sendable {
    /// What the device report names: the camera's device, or the synthetic source's name.
    var name: String { get }
    /// Whether the frames come from a real camera (the report's `deviceTestReport.camera.tested`).
    var isCamera: Bool { get }
    /// Opens the source; the check records an error thrown here in its device report and
    /// publishes the test pattern instead.
    func start() async throws(PreflightError)
    /// The newest picture, at once; `nil` while there is none yet.
    func latestVideoFrame() -> VideoFrame?
    /// Closes the source.
    func stop()
}

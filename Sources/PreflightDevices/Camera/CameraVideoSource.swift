import Foundation
public import Preflight
import PreflightCore
import Synchronization

/// A camera as a connectivity check's video (``Preflight/VideoFrameSource``): a ``FrameSource``
/// opened when the check starts and read on a thread of its own, its newest frame kept for the
/// check's video stream. By default the V4L2 camera at `device`, or the first one.
public final class CameraVideoSource: Preflight.VideoFrameSource {
    /// The camera's device (or the source's ID), for the device report.
    public let name: String
    /// Whether the frames come from a camera (`false` for a synthetic or piped source).
    public let isCamera: Bool
    private let open: @Sendable () throws(PreflightError) -> SourceBox
    private let stopSignal = StopSignal()
    private let latest = Mutex<VideoFrame?>(nil)

    /// A V4L2 camera.
    /// - Parameters:
    ///   - device: its node (`/dev/video0`); `nil` for the first camera. None there is 70401 when the check starts.
    ///   - width, height: the size asked for; 640×480 by default.
    public convenience init(device: String? = nil, width: Int = 640, height: Int = 480) {
        self.init(name: device ?? "first camera", isCamera: true) { () throws(PreflightError) -> any FrameSource in
            guard let id = device ?? V4L2Camera.cameras().first?.id else {
                throw PreflightError(code: .deviceNotFound, message: "no camera: no V4L2 capture device under /dev")
            }
            return try V4L2Camera(device: id, width: width, height: height)
        }
    }

    /// Any frame source, made when the check starts.
    /// - Parameters:
    ///   - name: for the device report.
    ///   - isCamera: whether it is a real camera.
    ///   - open: makes the source (on a thread of its own: it may block); its error goes to the report.
    public init(name: String, isCamera: Bool, open: @escaping @Sendable () throws(PreflightError) -> any FrameSource) {
        self.name = name
        self.isCamera = isCamera
        self.open = { () throws(PreflightError) in SourceBox(try open()) }
    }

    /// Opens the source and starts reading its frames.
    public func start() async throws(PreflightError) {
        let box = try await DeviceThread.run("preflight.camera-open", stop: stopSignal, open)
        let stop = stopSignal
        let thread = Thread { [self] in
            defer { box.source.close() }
            while !stop.isStopped {
                guard let frame = try? box.source.nextFrame(stop: stop) else { return }
                latest.withLock { $0 = frame }
            }
        }
        thread.name = "preflight.camera-video"
        thread.start()
    }

    /// The newest frame.
    public func latestVideoFrame() -> VideoFrame? { latest.withLock { $0 } }

    /// Stops reading and closes the source.
    public func stop() { stopSignal.stop() }
}

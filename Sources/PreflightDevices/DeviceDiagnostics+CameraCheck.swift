import Foundation
import Logging
import PreflightCore
import Synchronization

extension DeviceDiagnostics {
    /// The cameras (V4L2 capture devices on Linux; none elsewhere yet).
    public func cameras() -> [CameraDevice] {
        #if os(Linux)
        V4L2Camera.cameras()
        #else
        []
        #endif
    }

    /// 100ms's form: opens `device` (the first camera when `nil`, as 100ms opens the front one)
    /// and calls `completion` with the running check's video track, or the error.
    /// - Parameters:
    ///   - device: a camera from ``cameras()``, or `nil` for the first.
    ///   - width: the size to ask for; default 640 × 480.
    ///   - height: the size to ask for.
    ///   - completion: called once, on a background thread.
    public func startCameraCheck(
        device: CameraDevice? = nil, width: Int = 640, height: Int = 480,
        completion: @escaping @Sendable (Result<CameraTrack, PreflightError>) -> Void
    ) {
        Task {
            do throws(PreflightError) {
                let id = device?.id ?? cameras().first?.id
                guard let id else { throw PreflightError(code: .deviceNotFound, message: "no camera: no V4L2 capture device under /dev") }
                let camera = try await DeviceThread.run("preflight.camera-open", stop: StopSignal()) { () throws(PreflightError) in
                    SourceBox(try V4L2Camera(device: id, width: width, height: height))
                }
                completion(.success(try beginCameraCheck(camera, duration: nil)))
            } catch {
                completion(.failure(error))
            }
        }
    }

    /// Starts a camera check on any frame source (a camera, a synthetic pattern, frames from a
    /// pipe) and returns its track. The check owns the source from now on and closes it.
    /// - Parameters:
    ///   - source: where the frames come from.
    ///   - duration: how long to check; `nil` (default) until ``stopCameraCheck()`` or the
    ///     source's end.
    /// - Throws: `deviceCheckInProgress` (70407) when a camera check runs.
    public func startCameraCheck(source: sending any FrameSource, duration: Duration? = nil) throws(PreflightError) -> CameraTrack {
        try beginCameraCheck(SourceBox(source), duration: duration)
    }

    /// Runs a camera check for `duration` (or until the source ends) and returns its verdicts.
    public func cameraCheck(source: sending any FrameSource, duration: Duration? = nil) async throws(PreflightError) -> CameraCheckResult {
        try await beginCameraCheck(SourceBox(source), duration: duration).result()
    }

    /// Ends the running camera check; its track's result holds what was seen. Does nothing when none runs.
    public func stopCameraCheck() {
        state.withLock { $0.cameraCheck }?.stop()
    }

    private func beginCameraCheck(_ box: SourceBox, duration: Duration?) throws(PreflightError) -> CameraTrack {
        let track = CameraTrack(device: box.source.sourceID)
        let started = state.withLock { state -> Bool in
            guard state.cameraCheck == nil else { return false }
            state.cameraCheck = track
            return true
        }
        guard started else {
            box.source.close()
            throw PreflightError(code: .deviceCheckInProgress, message: "a camera check is already running; stop it first")
        }
        logger.debug("camera check", metadata: ["source": "\(track.device)"])
        let thread = Thread { [self] in
            let outcome = Result { () throws(PreflightError) -> CameraCheckResult in
                try Self.runCameraCheck(box, track: track, duration: duration)
            }
            box.source.close()
            state.withLock { state in
                if state.cameraCheck === track { state.cameraCheck = nil }
            }
            track.finish(outcome)
        }
        thread.name = "preflight.camera-check"
        thread.start()
        return track
    }

    private static func runCameraCheck(_ box: SourceBox, track: CameraTrack, duration: Duration?) throws(PreflightError) -> CameraCheckResult {
        let source = box.source
        var checker = CameraFrameChecker(requestedWidth: source.requestedWidth, requestedHeight: source.requestedHeight)
        let clock = ContinuousClock()
        let end = duration.map { clock.now + $0 }
        while !track.stopSignal.isStopped {
            if let end, clock.now >= end { break }
            guard let frame = try source.nextFrame(stop: track.stopSignal) else { break }
            checker.add(frame)
            track.deliver(frame)
        }
        let dropped = (source as? V4L2Camera)?.droppedFrames ?? 0
        return checker.result(source: source.sourceID, droppedFrames: dropped, stoppedEarly: track.stopSignal.isStopped)
    }
}

/// Moves a frame source, which is used from one thread at a time, to the check's thread: the
/// caller hands it over (`sending`) and never touches it again.
struct SourceBox: @unchecked Sendable {
    let source: any FrameSource
    init(_ source: any FrameSource) { self.source = source }
}

import PreflightCore
import Synchronization

/// The video track a camera check returns (100ms's `startCameraCheck` hands the app a local video
/// track to show): the frames as they arrive, for any number of subscribers, and the check's
/// verdicts when it ends.
public final class CameraTrack: Sendable {
    /// The camera or source the frames come from.
    public let device: String
    let stopSignal = StopSignal()
    private let state = Mutex(State())

    struct State {
        var subscribers: [Int: AsyncStream<VideoFrame>.Continuation] = [:]
        var nextSubscriber = 0
        var latestFrame: VideoFrame?
        var outcome: Result<CameraCheckResult, PreflightError>?
        var waiters: [CheckedContinuation<Result<CameraCheckResult, PreflightError>, Never>] = []
    }

    init(device: String) { self.device = device }

    /// The frames from now on, newest first when a subscriber falls behind (at most 2 are kept for
    /// it). The stream ends when the check ends.
    public func frames() -> AsyncStream<VideoFrame> {
        let (stream, continuation) = AsyncStream<VideoFrame>.makeStream(bufferingPolicy: .bufferingNewest(2))
        let ended = state.withLock { state -> Bool in
            guard state.outcome == nil else { return true }
            let id = state.nextSubscriber
            state.nextSubscriber += 1
            state.subscribers[id] = continuation
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
            }
            return false
        }
        if ended { continuation.finish() }
        return stream
    }

    /// The last frame received (the camera check's snapshot).
    public var latestFrame: VideoFrame? { state.withLock { $0.latestFrame } }

    /// Ends the check; ``result()`` then returns what it saw.
    public func stop() { stopSignal.stop() }

    /// Waits for the check to end (its duration, ``stop()``, the source's end or failure).
    /// - Throws: ``PreflightError`` `deviceFailed` (70406) or the source's error when it broke.
    public func result() async throws(PreflightError) -> CameraCheckResult {
        let outcome = await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Result<CameraCheckResult, PreflightError>? in
                if state.outcome == nil { state.waiters.append(continuation) }
                return state.outcome
            }
            if let ready { continuation.resume(returning: ready) }
        }
        return try outcome.get()
    }

    func deliver(_ frame: VideoFrame) {
        let subscribers = state.withLock { state in
            state.latestFrame = frame
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.yield(frame) }
    }

    func finish(_ outcome: Result<CameraCheckResult, PreflightError>) {
        let (subscribers, waiters) = state.withLock { state in
            state.outcome = outcome
            defer {
                state.subscribers = [:]
                state.waiters = []
            }
            return (Array(state.subscribers.values), state.waiters)
        }
        for subscriber in subscribers { subscriber.finish() }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }
}

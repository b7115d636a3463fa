import Foundation
import PreflightCore

/// Raw frames read from a file descriptor (a pipe from `ffmpeg -f rawvideo -pix_fmt yuv420p -`,
/// or standard input), timestamped on arrival by the monotonic clock: the frame rate measured is
/// the rate the frames really came at.
public final class RawVideoSource: FrameSource {
    /// What the frames come from, for results and messages.
    public let sourceID: String
    /// The width asked for.
    public let requestedWidth: Int
    /// The height asked for.
    public let requestedHeight: Int
    private let descriptor: Int32
    private let format: CameraPixelFormat
    private let frameSize: Int
    private let stallLimit: Duration
    private var start: ContinuousClock.Instant?

    /// Creates a source.
    /// - Parameters:
    ///   - descriptor: where the frames come from; not closed by ``close()``.
    ///   - width: pixels across.
    ///   - height: pixels down.
    ///   - format: the frames' pixel format; default I420 (ffmpeg's `yuv420p`).
    ///   - sourceID: a name for results; default "pipe".
    ///   - stallLimit: how long without a frame counts as a failure; default 2 s.
    /// - Throws: `invalidArgument` (70005) for a size out of range.
    public init(
        descriptor: Int32, width: Int, height: Int, format: CameraPixelFormat = .i420, sourceID: String = "pipe",
        stallLimit: Duration = .seconds(2)
    ) throws(PreflightError) {
        guard (1...VideoFrame.maximumDimension).contains(width), (1...VideoFrame.maximumDimension).contains(height) else {
            throw PreflightError(code: .invalidArgument, message: "raw video size \(width)×\(height) is out of range")
        }
        self.descriptor = descriptor
        self.requestedWidth = width
        self.requestedHeight = height
        self.format = format
        self.frameSize = format.frameSize(width: width, height: height)
        self.sourceID = sourceID
        self.stallLimit = stallLimit
    }

    /// The next frame (see ``FrameSource/nextFrame(stop:)``).
    public func nextFrame(stop: StopSignal) throws(PreflightError) -> VideoFrame? {
        var buffer = [UInt8](repeating: 0, count: frameSize)
        var filled = 0
        let clock = ContinuousClock()
        var lastProgress = clock.now
        while filled < frameSize {
            if stop.isStopped { return nil }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 50)
            if ready < 0, errno != EINTR {
                throw PreflightError(code: .deviceFailed, message: "\(sourceID): poll failed (errno \(errno))")
            }
            if ready <= 0 {
                if clock.now - lastProgress > stallLimit {
                    throw PreflightError(code: .deviceFailed, message: "\(sourceID) delivered nothing for \(stallLimit)")
                }
                continue
            }
            let count = buffer.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return -1 }
                return read(descriptor, base + filled, frameSize - filled)
            }
            if count == 0 {
                // The end: a partial frame is a frame cut short.
                guard filled == 0 else {
                    throw PreflightError(code: .truncated, message: "\(sourceID) ended inside a frame: \(filled) of \(frameSize) bytes")
                }
                return nil
            }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw PreflightError(code: .deviceFailed, message: "\(sourceID): read failed (errno \(errno))")
            }
            filled += count
            lastProgress = clock.now
        }
        let now = clock.now
        let start = self.start ?? now
        self.start = start
        return try VideoFrame(
            converting: buffer, format: format, width: requestedWidth, height: requestedHeight, timestamp: (now - start).inSeconds)
    }

    /// Releases the source.
    public func close() {}
}

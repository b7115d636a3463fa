import PreflightCore

/// Where a camera check's frames come from: a camera (``V4L2Camera``), a synthetic pattern
/// (``SyntheticFrameSource``), or raw frames from a pipe (``RawVideoSource``, e.g. ffmpeg).
///
/// Like ``AudioInputStream`` it blocks: it is read from one thread that may block, and only a
/// ``StopSignal`` crosses threads.
public protocol FrameSource: AnyObject {
    /// What the frames come from, for results and messages (`/dev/video0`, `testsrc`, `stdin`).
    var sourceID: String { get }
    /// The size that was asked for.
    var requestedWidth: Int { get }
    /// The size that was asked for.
    var requestedHeight: Int { get }

    /// Blocks until the next frame, `nil` when the source ended or `stop` was given.
    /// - Throws: ``PreflightError`` `deviceFailed` (70406) when the source broke or delivered
    ///   nothing for 2 s; `truncated` (70001) for a frame cut short.
    func nextFrame(stop: StopSignal) throws(PreflightError) -> VideoFrame?

    /// Releases the source.
    func close()
}

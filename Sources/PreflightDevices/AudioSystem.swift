/// The platform's audio: its devices and streams to and from them.
///
/// The calls block (device I/O is paced by the hardware clock): call them from a thread that may
/// block, as ``DeviceDiagnostics`` does, never from a Swift concurrency executor's threads. Each
/// stream is used from the one thread that opened it; only a ``StopSignal`` crosses threads.
public protocol AudioSystem: Sendable {
    /// The audio system's name, for messages and reports (e.g. "PulseAudio").
    var name: String { get }

    /// Every input and output device, defaults marked.
    /// - Throws: ``PreflightError`` `deviceServiceUnavailable` (70405) when no audio server
    ///   answers, `devicePermissionDenied` (70403) when it refuses this client.
    func devices() throws(PreflightError) -> [AudioDevice]

    /// Opens a recording stream.
    /// - Parameters:
    ///   - device: an input's ``AudioDevice/id``, or `nil` for the default input.
    ///   - format: the format to deliver samples in.
    ///   - stop: given while opening, the open gives up with `cancelled` (31008).
    /// - Throws: ``PreflightError`` with a device code (70401–70406).
    func openInput(device: String?, format: AudioFormat, stop: StopSignal) throws(PreflightError) -> any AudioInputStream

    /// Opens a playback stream.
    /// - Parameters:
    ///   - device: an output's ``AudioDevice/id``, or `nil` for the default output.
    ///   - format: the format of the samples that will be written.
    ///   - stop: given while opening, the open gives up with `cancelled` (31008).
    /// - Throws: ``PreflightError`` with a device code (70401–70406).
    func openOutput(device: String?, format: AudioFormat, stop: StopSignal) throws(PreflightError) -> any AudioOutputStream
}

/// A recording stream from one input device, used from one thread.
public protocol AudioInputStream: AnyObject {
    /// The id of the device the stream records from (the default's real name when none was asked).
    var deviceID: String { get }

    /// Blocks until `frameCount` frames were recorded, or `stop` is given (then returns what was
    /// recorded, possibly nothing).
    /// - Throws: ``PreflightError`` `deviceFailed` (70406) when the stream breaks or delivers
    ///   nothing for 5 s (PulseAudio; an idle sink's monitor delivers in bursts of up to 2 s).
    func read(frameCount: Int, stop: StopSignal) throws(PreflightError) -> [Int16]

    /// Ends the stream. Reading after it fails.
    func close()
}

/// A playback stream to one output device, used from one thread.
public protocol AudioOutputStream: AnyObject {
    /// The id of the device the stream plays to.
    var deviceID: String { get }

    /// Blocks until `samples` (interleaved, in the stream's format) were handed to the device, or
    /// `stop` is given.
    /// - Throws: ``PreflightError`` `deviceFailed` (70406) when the stream breaks or takes
    ///   nothing for 2 s.
    func write(_ samples: [Int16], stop: StopSignal) throws(PreflightError)

    /// Blocks until everything written has played, or `stop` is given.
    func drain(stop: StopSignal) throws(PreflightError)

    /// Ends the stream; what was not played yet is dropped.
    func close()
}

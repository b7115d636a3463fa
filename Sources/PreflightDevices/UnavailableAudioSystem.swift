/// An audio system that has no devices: every call throws `deviceServiceUnavailable` (70405)
/// with its reason. What a platform without a backend gets.
public struct UnavailableAudioSystem: AudioSystem {
    /// Why there is no audio.
    public var reason: String

    /// Creates the system.
    /// - Parameter reason: why there is no audio, for the error's message.
    public init(reason: String) { self.reason = reason }

    /// "none".
    public var name: String { "none" }

    private var error: PreflightError { PreflightError(code: .deviceServiceUnavailable, message: reason) }

    /// Always throws 70405.
    public func devices() throws(PreflightError) -> [AudioDevice] { throw error }

    /// Always throws 70405.
    public func openInput(device: String?, format: AudioFormat, stop: StopSignal) throws(PreflightError) -> any AudioInputStream {
        throw error
    }

    /// Always throws 70405.
    public func openOutput(device: String?, format: AudioFormat, stop: StopSignal) throws(PreflightError) -> any AudioOutputStream {
        throw error
    }
}

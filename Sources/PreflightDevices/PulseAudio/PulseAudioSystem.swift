/// Audio through PulseAudio's client library: PulseAudio itself, or PipeWire's pulse server on
/// current Linux desktops (the same protocol and API).
///
/// Each stream opens its own connection to the server and drives it from the calling thread
/// (a `pa_mainloop` iterated in steps of at most 20 ms), so every wait has a deadline and a
/// ``StopSignal`` is seen within 20 ms. Built without `libpulse-dev` (no `pulse/pulseaudio.h`),
/// every call throws `deviceServiceUnavailable` (70405).
public struct PulseAudioSystem: AudioSystem {
    /// The server to connect to (`unix:/run/user/1000/pulse/native`, `tcp:host:4713`), or `nil`
    /// for libpulse's own choice: `$PULSE_SERVER`, then the user's default socket.
    public var server: String?
    /// The application name the server shows for our streams.
    public var applicationName: String
    /// How long to wait for the server to accept the connection, and for a stream to start; seconds.
    public var timeout: Double

    /// Creates the audio system.
    /// - Parameters:
    ///   - server: the server address, or `nil` (default) for libpulse's choice.
    ///   - applicationName: default "Preflight".
    ///   - timeout: seconds, default 5.
    public init(server: String? = nil, applicationName: String = "Preflight", timeout: Double = 5) {
        self.server = server
        self.applicationName = applicationName
        self.timeout = timeout
    }

    /// "PulseAudio", or the server's own name and version once connected (see ``serverName()``).
    public var name: String { "PulseAudio" }
}

#if canImport(CPulseAudio)
extension PulseAudioSystem {
    /// Whether this build has PulseAudio (libpulse-dev was installed when it was built).
    public static let isBuilt = true

    /// The server's package name and version, e.g. "pulseaudio 16.1" or "PulseAudio (on PipeWire 1.0.5) 15.0.0".
    public func serverName() throws(PreflightError) -> String {
        let connection = try PulseAudioConnection(system: self, stop: StopSignal())
        return try connection.serverInformation().description
    }

    /// Every sink (output) and source (input), defaults marked (see ``AudioSystem/devices()``).
    public func devices() throws(PreflightError) -> [AudioDevice] {
        let connection = try PulseAudioConnection(system: self, stop: StopSignal())
        return try connection.devices()
    }

    /// Opens a record stream (see ``AudioSystem/openInput(device:format:stop:)``).
    public func openInput(device: String?, format: AudioFormat, stop: StopSignal) throws(PreflightError) -> any AudioInputStream {
        try PulseAudioInput(connection: PulseAudioConnection(system: self, stop: stop), device: device, format: format, stop: stop)
    }

    /// Opens a playback stream (see ``AudioSystem/openOutput(device:format:stop:)``).
    public func openOutput(device: String?, format: AudioFormat, stop: StopSignal) throws(PreflightError) -> any AudioOutputStream {
        try PulseAudioOutput(connection: PulseAudioConnection(system: self, stop: stop), device: device, format: format, stop: stop)
    }
}
#else
extension PulseAudioSystem {
    /// Whether this build has PulseAudio (libpulse-dev was installed when it was built).
    public static let isBuilt = false

    static var unavailable: PreflightError {
        PreflightError(
            code: .deviceServiceUnavailable,
            message: "this build has no PulseAudio: install libpulse-dev (pkg-config libpulse) and rebuild")
    }

    /// Always throws 70405: this build has no PulseAudio.
    public func serverName() throws(PreflightError) -> String { throw Self.unavailable }

    /// Always throws 70405: this build has no PulseAudio.
    public func devices() throws(PreflightError) -> [AudioDevice] { throw Self.unavailable }

    /// Always throws 70405: this build has no PulseAudio.
    public func openInput(device: String?, format: AudioFormat, stop: StopSignal) throws(PreflightError) -> any AudioInputStream {
        throw Self.unavailable
    }

    /// Always throws 70405: this build has no PulseAudio.
    public func openOutput(device: String?, format: AudioFormat, stop: StopSignal) throws(PreflightError) -> any AudioOutputStream {
        throw Self.unavailable
    }
}
#endif

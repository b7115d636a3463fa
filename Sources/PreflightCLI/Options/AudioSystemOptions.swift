import ArgumentParser
import PreflightDevices

/// The options that choose the audio system of the device commands.
public struct AudioSystemOptions: ParsableArguments, Sendable {
    /// The PulseAudio server to use.
    @Option(
        name: .customLong("audio-server"),
        help: "The PulseAudio (or PipeWire pulse) server, e.g. unix:/run/user/1000/pulse/native. Default: $PULSE_SERVER, then the user's.")
    public var audioServer: String?

    /// Creates the options (ArgumentParser requirement).
    public init() {}

    /// The diagnostics these options ask for.
    public var diagnostics: DeviceDiagnostics {
        #if os(Linux)
        DeviceDiagnostics(configuration: DeviceDiagnosticsConfiguration(audioSystem: PulseAudioSystem(server: audioServer)))
        #else
        DeviceDiagnostics()
        #endif
    }
}

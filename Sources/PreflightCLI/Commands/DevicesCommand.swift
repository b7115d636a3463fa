import ArgumentParser
import Foundation
import PreflightCore
import PreflightDevices

/// `preflight devices`: the microphones and speakers the audio system offers.
public struct DevicesCommand: AsyncParsableCommand, Sendable {
    /// The subcommand's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the microphones, speakers and cameras.",
        discussion: """
            Lists every audio input (microphones, and on Linux each output's monitor) and output, \
            the default of each kind marked with *, with the id that --device takes. Exits 1 with \
            "error <code>: <message>" when no audio server answers (70405) or it refuses us (70403).
            """
    )

    /// Which audio server.
    @OptionGroup public var audio: AudioSystemOptions
    /// Print JSON.
    @Flag(help: "Print {\"audio\": [devices], \"cameras\": [cameras]} as JSON.")
    public var json = false

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// The listing as JSON.
    struct Listing: Codable {
        var audio: [AudioDevice]
        /// Why there are no audio devices, when the audio system could not be asked.
        var audioError: ReportError?
        var cameras: [CameraDevice]
    }

    /// Lists the devices and prints them.
    public func run() async throws {
        let (text, error) = try await execute()
        print(text)
        if let error { throw CommandFailure(error) }
    }

    /// The listing's text (or JSON), and the audio system's error when it could not be asked
    /// (the cameras are listed all the same).
    func execute() async throws -> (text: String, error: PreflightError?) {
        let diagnostics = audio.diagnostics
        var devices: [AudioDevice] = []
        var audioError: PreflightError?
        do {
            devices = try await diagnostics.audioDevices()
        } catch {
            audioError = error
        }
        let cameras = diagnostics.cameras()
        if json {
            let listing = Listing(audio: devices, audioError: audioError.map(ReportError.init), cameras: cameras)
            return (try JSONText.pretty(listing), audioError)
        }
        var lines: [String] = []
        if let audioError { lines.append("audio: error \(audioError.code.rawValue): \(audioError.message)") }
        for kind in AudioDeviceKind.allCases {
            lines.append(kind == .input ? "inputs (microphones):" : "outputs (speakers):")
            let ofKind = devices.filter { $0.kind == kind }
            if ofKind.isEmpty { lines.append("  (none)") }
            for device in ofKind {
                // Names come from the audio server: escaped, so that no control character reaches the terminal.
                var line = "  \(device.isDefault ? "*" : " ") \(UntrustedText.excerpt(device.id, limit: 120))"
                line += "  \(UntrustedText.excerpt(device.name, limit: 120))  \(device.sampleRate) Hz, \(device.channels) ch"
                if let monitor = device.monitorOf { line += "  (hears \(UntrustedText.excerpt(monitor, limit: 120)))" }
                lines.append(line)
            }
        }
        lines.append("cameras:")
        if cameras.isEmpty { lines.append("  (none: no V4L2 capture device under /dev)") }
        for camera in cameras {
            lines.append("    \(camera.id)  \(UntrustedText.excerpt(camera.name, limit: 120))  \(UntrustedText.excerpt(camera.bus, limit: 120))")
        }
        return (lines.joined(separator: "\n"), audioError)
    }
}

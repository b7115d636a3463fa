import ArgumentParser
import Foundation
import PreflightCore
import PreflightDevices

/// `preflight devices`: the microphones and speakers the audio system offers.
public struct DevicesCommand: AsyncParsableCommand, Sendable {
    /// The subcommand's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the microphones and speakers.",
        discussion: """
            Lists every audio input (microphones, and on Linux each output's monitor) and output, \
            the default of each kind marked with *, with the id that --device takes. Exits 1 with \
            "error <code>: <message>" when no audio server answers (70405) or it refuses us (70403).
            """
    )

    /// Which audio server.
    @OptionGroup public var audio: AudioSystemOptions
    /// Print JSON.
    @Flag(help: "Print {\"audio\": [devices]} as JSON.")
    public var json = false

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// The listing as JSON.
    struct Listing: Codable {
        var audio: [AudioDevice]
    }

    /// Lists the devices and prints them.
    public func run() async throws {
        do {
            print(try await execute())
        } catch let error as PreflightError {
            throw CommandFailure(error)
        }
    }

    /// The listing's text (or JSON).
    func execute() async throws -> String {
        let devices = try await audio.diagnostics.audioDevices()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            return String(decoding: try encoder.encode(Listing(audio: devices)), as: UTF8.self)
        }
        var lines: [String] = []
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
        return lines.joined(separator: "\n")
    }
}

import ArgumentParser
import Foundation
import PreflightCore
import PreflightDevices

/// `preflight speaker-check`: 100ms's speaker check from a terminal.
public struct SpeakerCheckCommand: AsyncParsableCommand, Sendable {
    /// The subcommand's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "speaker-check",
        abstract: "Play a recording on the speaker.",
        discussion: """
            Plays --file (a 16-bit PCM WAV file, e.g. the recording `preflight mic-check` printed), \
            or Preflight's bundled voice, on the speaker, and says what was played. Whether you \
            heard it is yours to say. Exits 1 with "error <code>: <message>" when it could not play.
            """
    )

    /// What to play.
    @Option(help: "A 16-bit PCM WAV file to play. Default: the bundled voice recording.")
    public var file: String?
    /// The output to play to.
    @Option(help: "The output's id (see `preflight devices`). Default: the default output.")
    public var device: String?
    /// Which audio server.
    @OptionGroup public var audio: AudioSystemOptions
    /// Print JSON.
    @Flag(help: "Print the result as JSON.")
    public var json = false

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// Plays and prints what was played.
    public func run() async throws {
        switch await execute() {
        case .success(let text): print(text)
        case .failure(let error): throw CommandFailure(error)
        }
    }

    /// Plays; the text (or JSON) to print, or the error.
    func execute() async -> Result<String, PreflightError> {
        do {
            let result = try await audio.diagnostics.speakerCheck(file: file.map { URL(fileURLWithPath: $0) }, device: device)
            if json { return .success(try JSONText.pretty(result)) }
            let source: String
            switch result.source {
            case .bundledRecording: source = "the bundled voice recording"
            case .file(let url), .micCheckRecording(let url): source = url.path
            }
            return .success(
                String(
                    format: "played %.1f s of %@ at %.1f dBFS on %@%@", result.duration, source, result.level,
                    UntrustedText.excerpt(result.device, limit: 120), result.stoppedEarly ? " (stopped early)" : ""))
        } catch let error as PreflightError {
            return .failure(error)
        } catch {
            return .failure(PreflightError(code: .invalidArgument, message: "cannot print the result: \(error)"))
        }
    }
}

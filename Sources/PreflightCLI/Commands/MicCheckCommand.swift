import ArgumentParser
import Foundation
import PreflightCore
import PreflightDevices
import Synchronization

/// `preflight mic-check`: 100ms's microphone check from a terminal, with a live level bar.
public struct MicCheckCommand: AsyncParsableCommand, Sendable {
    /// The subcommand's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "mic-check",
        abstract: "Record the microphone, showing its level every second.",
        discussion: """
            Records the microphone for --duration seconds into a WAV file, printing each second's \
            level (RMS, dBFS) with a bar, then the recording's path, its average and peak levels and \
            a verdict: silent (every second below -60 dBFS: muted, the wrong device, or a silent \
            room) or sound heard. Exits 1 with "error <code>: <message>" when the check could not run.
            """
    )

    /// Seconds to record.
    @Option(help: "Seconds to record, 1-60.")
    public var duration: Double = 5
    /// The input to record.
    @Option(help: "The input's id (see `preflight devices`). Default: the default input.")
    public var device: String?
    /// Which audio server.
    @OptionGroup public var audio: AudioSystemOptions
    /// Print JSON.
    @Flag(help: "Print the result as JSON on standard output (the level lines go to standard error).")
    public var json = false

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// Runs the check and prints it.
    public func run() async throws {
        let outcome = await execute { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        } output: { text in
            print(text)
        }
        if case .failure(let error) = outcome { throw CommandFailure(error) }
    }

    /// Runs the check: the level lines go to `progress` (to `output` without `--json`), the
    /// summary or JSON to `output`.
    func execute(progress: @escaping @Sendable (String) -> Void, output: @escaping @Sendable (String) -> Void) async
        -> Result<MicCheckResult, PreflightError>
    {
        let live = json ? progress : output
        // Out-of-range and non-finite durations reach the SDK's check as out of range (70005).
        let milliseconds = duration.isFinite ? Int((duration * 1000).rounded().clamped(to: -1...1e9)) : -1
        let seconds = Mutex(0)
        do {
            let result = try await audio.diagnostics.micCheck(timeInMillis: milliseconds, device: device) { level in
                let second = seconds.withLock { count in
                    count += 1
                    return count
                }
                live(Self.levelLine(second: second, level: level))
            }
            output(json ? try JSONText.pretty(result) : Self.summary(result))
            return .success(result)
        } catch let error as PreflightError {
            return .failure(error)
        } catch {
            return .failure(PreflightError(code: .invalidArgument, message: "cannot print the result: \(error)"))
        }
    }

    /// `  3 s  -23.4 dBFS  ██████████░░░░░░░░░░░░░░░░░░░░`: the bar spans −60 to 0 dBFS.
    static func levelLine(second: Int, level: Double) -> String {
        let width = 30
        let filled = Int(((level + 60) / 60 * Double(width)).rounded().clamped(to: 0...Double(width)))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        return String(format: "%3d s  %6.1f dBFS  ", second, level) + bar
    }

    static func summary(_ result: MicCheckResult) -> String {
        var lines = [
            "recorded \(String(format: "%.1f", result.duration)) s from \(UntrustedText.excerpt(result.device, limit: 120))"
                + (result.stoppedEarly ? " (stopped early)" : "") + ": \(result.recordingURL.path)",
            String(format: "average %.1f dBFS, peak %.1f dBFS", result.averageLevel, result.peakLevel),
        ]
        lines.append(
            result.isSilent
                ? "silent: every second was below -60 dBFS; check that the microphone is not muted and is the one you speak into"
                : "sound heard: the microphone works")
        return lines.joined(separator: "\n")
    }

}

extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}

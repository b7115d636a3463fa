import ArgumentParser
import Foundation
import PreflightCore
import PreflightDevices

/// `preflight camera-check`: the camera check from a terminal: frames, rate, size, black and
/// frozen verdicts, and a PNG snapshot.
public struct CameraCheckCommand: AsyncParsableCommand, Sendable {
    /// The subcommand's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "camera-check",
        abstract: "Check a camera: frames, frame rate, resolution, black and frozen frames.",
        discussion: """
            Reads the camera (--device, a V4L2 node; default the first camera) or another source \
            (--source testsrc|black|frozen: a synthetic pattern; --source stdin: raw yuv420p frames \
            of --size, e.g. from ffmpeg) for --duration seconds, then prints the frames received, \
            the frame rate, the size against the one asked for, and how many frames were black (no \
            luma above 20) or frozen (SSIM above 0.985 against the one before). --snapshot writes \
            the last frame as a PNG. Exits 1 with "error <code>: <message>" when the source could \
            not be read.
            """
    )

    /// The camera.
    @Option(help: "The camera's device node (see `preflight devices`). Default: the first camera.")
    public var device: String?
    /// A source instead of a camera.
    @Option(help: "testsrc, black or frozen (synthetic patterns), or stdin (raw yuv420p frames of --size).")
    public var source: String?
    /// The size to ask for.
    @Option(help: "The size to ask for, WIDTHxHEIGHT.")
    public var size: String = "640x480"
    /// Seconds to check.
    @Option(help: "Seconds to check, 1-60 (stdin: until it ends, at most this).")
    public var duration: Double = 3
    /// Where to write the snapshot.
    @Option(help: "Write the last frame to this PNG file.")
    public var snapshot: String?
    /// Print JSON.
    @Flag(help: "Print the result as JSON.")
    public var json = false

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// Checks the arguments' combinations.
    public mutating func validate() throws {
        if device != nil, source != nil { throw ValidationError("--device and --source each name what to read; give one") }
        if let source, !["testsrc", "black", "frozen", "stdin"].contains(source) {
            throw ValidationError("--source must be testsrc, black, frozen or stdin, got \"\(source)\"")
        }
        guard duration.isFinite, (1...60).contains(duration) else { throw ValidationError("--duration must be 1 to 60 seconds") }
        guard let (width, height) = Self.parseSize(size), (16...VideoFrame.maximumDimension).contains(width),
            (16...VideoFrame.maximumDimension).contains(height)
        else {
            throw ValidationError("--size must be WIDTHxHEIGHT, 16 to \(VideoFrame.maximumDimension) each, got \"\(size)\"")
        }
    }

    static func parseSize(_ text: String) -> (Int, Int)? {
        let parts = text.split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) else { return nil }
        return (width, height)
    }

    /// Runs the check and prints it.
    public func run() async throws {
        switch await execute() {
        case .success(let text): print(text)
        case .failure(let error): throw CommandFailure(error)
        }
    }

    /// Runs the check; the text (or JSON) to print, or the error.
    func execute() async -> Result<String, PreflightError> {
        let (width, height) = Self.parseSize(size) ?? (640, 480)
        let diagnostics = DeviceDiagnostics()
        do throws(PreflightError) {
            let track: CameraTrack
            switch source {
            case "stdin":
                track = try diagnostics.startCameraCheck(
                    source: RawVideoSource(descriptor: 0, width: width, height: height, sourceID: "stdin"), duration: .seconds(duration))
            case let pattern?:
                track = try diagnostics.startCameraCheck(
                    source: SyntheticFrameSource(pattern: SyntheticFrameSource.Pattern(rawValue: pattern) ?? .moving, width: width, height: height),
                    duration: .seconds(duration))
            case nil:
                track = try await Self.openCamera(diagnostics, device: device, width: width, height: height)
                Task {
                    try? await Task.sleep(for: .seconds(duration))
                    track.stop()
                }
            }
            let result = try await track.result()
            var lines = [Self.summary(result, durationAsked: duration)]
            if let snapshot {
                guard let frame = track.latestFrame else {
                    throw PreflightError(code: .deviceFailed, message: "no frame arrived: no snapshot to write")
                }
                let png = try PNGImage.encode(rgb: frame.rgb(), width: frame.width, height: frame.height)
                do {
                    try Data(png).write(to: URL(fileURLWithPath: snapshot))
                } catch {
                    throw PreflightError(code: .fileUnwritable, message: "cannot write the snapshot \(snapshot)", underlying: error)
                }
                lines.append("snapshot: \(snapshot) (\(frame.width)x\(frame.height))")
            }
            if json {
                do {
                    return .success(try JSONText.pretty(result))
                } catch {
                    throw PreflightError(code: .invalidArgument, message: "cannot print the result: \(error)")
                }
            }
            return .success(lines.joined(separator: "\n"))
        } catch {
            return .failure(error)
        }
    }

    static func openCamera(_ diagnostics: DeviceDiagnostics, device: String?, width: Int, height: Int) async throws(PreflightError) -> CameraTrack {
        let camera = device.map { CameraDevice(id: $0, name: $0) }
        let outcome = await withCheckedContinuation { continuation in
            diagnostics.startCameraCheck(device: camera, width: width, height: height) { continuation.resume(returning: $0) }
        }
        return try outcome.get()
    }

    static func summary(_ result: CameraCheckResult, durationAsked: Double) -> String {
        var lines = [
            "\(UntrustedText.excerpt(result.device, limit: 120)): \(result.frames) frames in \(String(format: "%.2f", result.duration)) s, "
                + String(format: "%.1f fps", result.framesPerSecond)
                + (result.droppedFrames > 0 ? ", \(result.droppedFrames) dropped by the driver" : ""),
            "resolution \(result.width)x\(result.height) (asked \(result.requestedWidth)x\(result.requestedHeight))"
                + (result.isResolutionAsRequested ? "" : ": not as asked"),
            "black frames \(result.blackFrames) of \(result.frames), frozen frames \(result.frozenFrames) of \(max(0, result.frames - 1))",
        ]
        if result.frames == 0 {
            lines.append("no frames: the camera delivers nothing")
        } else if result.isBlack {
            lines.append("black: every frame is black (a covered lens, or a camera that sends nothing)")
        } else if result.isFrozen {
            lines.append("frozen: every frame is the one before (a stuck camera or driver)")
        } else {
            lines.append("frames move: the camera works")
        }
        return lines.joined(separator: "\n")
    }
}

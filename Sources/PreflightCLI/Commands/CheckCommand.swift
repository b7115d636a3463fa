import ArgumentParser
import Foundation
import Preflight
import PreflightCore
import PreflightDevices
import PreflightEdge

/// `preflight check`: 100ms's connectivity check: the init endpoint, the signaling, a publish
/// and a subscribe connection, audio and video up and back, and the result field for field.
public struct CheckCommand: AsyncParsableCommand, Sendable {
    /// The subcommand's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "100ms's connectivity check: init, signaling, publish and subscribe connections, audio and video up and back.",
        discussion: """
            Asks the edge's init endpoint for the signaling URL and ICE servers, connects the \
            signaling, opens a publish and a subscribe connection (each with its own ICE), \
            publishes audio (the test tone) and a video test stream (the first camera, or the one \
            --camera names; a synthetic pattern when there is none) and receives them back on the subscribe connection for \
            --duration seconds. Prints a line per state reached, then the result. --edge-url is the \
            edge's http[s]://host:port (its init endpoint) or its signaling URL ws[s]://host:port/signaling; \
            any valid token will do. Without --edge-url an edge starts in this process on loopback. Exits 1 with "error <code>: <message>" \
            (the first error) when the check did not complete or met an error (a camera that \
            failed: the check goes on with the pattern) (docs/errors.md).
            """
    )

    /// The edge, its token, its CA file and the signaling timeout.
    @OptionGroup(title: "Edge")
    public var connection: EdgeConnectionOptions
    /// A region hint.
    @Option(help: "A region hint for the init endpoint (100ms's region).")
    public var region: String?
    /// How long the check runs.
    @Option(help: "Seconds the check runs (5-120).")
    public var duration: Int = 20
    /// The audio codecs to offer.
    @Option(help: "The audio codecs to offer by preference, comma-separated: PCMU (default), opus, or opus,PCMU.")
    public var codec: String = "PCMU"
    /// The video bitrate.
    @Option(name: .customLong("video-bitrate"), help: "The video test stream's bitrate, kbps (100-1000).")
    public var videoBitrate: Int = 500
    /// The camera.
    @Option(help: "The video to publish: auto (the first V4L2 camera, else a synthetic pattern), synthetic, or a camera's node (/dev/video0).")
    public var camera: String = "auto"
    /// Seconds allowed for ICE.
    @Option(name: .customLong("ice-timeout"), help: "Seconds allowed for ICE on each connection (default 5).")
    public var iceTimeout: Double = 5
    /// Extra STUN/TURN servers.
    @OptionGroup(title: "ICE servers")
    public var iceServerOptions: ICEServerOptions
    /// Which candidates ICE may use.
    @Option(name: .customLong("ice-transport-policy"), help: "all, or relay to force media through TURN.")
    public var iceTransportPolicy: ICETransportPolicy = .all
    /// Print JSON.
    @Flag(help: "Print the result as JSON on standard output (the state lines go to standard error).")
    public var json = false

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// Checks the arguments' combinations (ranges are the SDK's to refuse, with their codes).
    public mutating func validate() throws {
        try connection.requireTogether()
        guard iceTimeout.isFinite, (0.1...60).contains(iceTimeout) else { throw ValidationError("--ice-timeout must be 0.1 to 60 seconds") }
        guard (1...10_000).contains(videoBitrate) else { throw ValidationError("--video-bitrate is in kbps (100-1000)") }
    }

    /// Runs the check and prints its states and result.
    public func run() async throws {
        let result = await execute { FileHandle.standardError.write(Data(($0 + "\n").utf8)) } output: { print($0) }
        if let first = result.errors.first {
            throw CommandFailure(PreflightError(code: PreflightError.Code(first.code), message: first.message))
        }
    }

    /// Runs it; the state lines go to `progress` with `--json`, else to `output` with the summary.
    public func execute(
        progress: @escaping @Sendable (String) -> Void, output: @escaping @Sendable (String) -> Void
    ) async -> ConnectivityCheckResult {
        let live: @Sendable (String) -> Void = json ? progress : output
        let result: ConnectivityCheckResult
        if let remote = connection.remote {
            result = await check(edge: remote.edgeURL, token: remote.token, live: live)
        } else {
            do {
                result = try await LocalEdge.withRunning { local in
                    live("check: local edge at \(local.signalingURL)")
                    return await check(edge: local.signalingURL, token: try await local.token(), live: live)
                }
            } catch {
                let failure = (error as? PreflightError) ?? PreflightError(code: .invalidArgument, message: "\(error)", underlying: error)
                result = ConnectivityCheckResult(failure: failure, testTimestamp: Self.now())
            }
        }
        output(json ? String(decoding: (try? result.jsonData()) ?? Data("{}".utf8), as: UTF8.self) : CheckText.summary(result))
        return result
    }

    private func check(edge: String, token: String, live: @escaping @Sendable (String) -> Void) async -> ConnectivityCheckResult {
        var options = ConnectivityCheckOptions(
            accessToken: token, edge: edge, duration: .seconds(duration), preferredAudioCodecs: CodecList.parse(codec),
            videoBitrate: videoBitrate * 1000, signalingTimeout: connection.timeout,
            iceTimeout: .milliseconds(Int64(iceTimeout * 1000)), iceTransportPolicy: iceTransportPolicy, edgeTrustedCertificatesFile: connection.edgeCAFile)
        switch camera {
        case "synthetic": break
        case "auto": if let first = V4L2Camera.cameras().first { options.videoInput = CameraVideoSource(device: first.id) }
        default: options.videoInput = CameraVideoSource(device: camera)
        }
        do {
            options.iceServers = try iceServerOptions.servers(environment: ProcessInfo.processInfo.environment)
        } catch {
            return ConnectivityCheckResult(
                failure: PreflightError(code: .invalidArgument, message: "ICE servers: \(error)", underlying: error), testTimestamp: Self.now())
        }
        let started = ContinuousClock.now
        let diagnostics = Diagnostics(options: options)
        do {
            return try await diagnostics.connectivityCheck(region: region) { state in
                live(String(format: "%6.2f s  %@", (ContinuousClock.now - started).inSeconds, state.description))
            }
        } catch {
            return ConnectivityCheckResult(failure: error, testTimestamp: Self.now())
        }
    }

    static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}

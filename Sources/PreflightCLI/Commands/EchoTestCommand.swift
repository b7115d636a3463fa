import ArgumentParser
import Foundation
import Preflight
import PreflightCore
import PreflightDevices
import PreflightEdge

/// `preflight echo-test`: Agora's audio echo test from a terminal.
public struct EchoTestCommand: AsyncParsableCommand, Sendable {
    /// The subcommand's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "echo-test",
        abstract: "Speak, and hear yourself back from the edge after the interval (Agora's echo test).",
        discussion: """
            Sends the microphone's audio to the edge's record-playback application, which records \
            --interval seconds and plays them back on the speaker. Then prints how much was \
            recorded and played back, the delay from speaking to hearing, how closely the playback \
            matches what was said (normalised cross-correlation; 0.5 or more: heard back), and the \
            test call's RTT, jitter and MOS. Without --edge-url an edge starts in this process; with it, \
            --token's outgoing application must be the edge's record-playback application. Exits \
            1 with "error <code>: <message>" when the test could not run.
            """
    )

    /// Seconds the edge records.
    @Option(help: "Seconds the edge records before playing back, 2-10.")
    public var interval: Int = 10
    /// The microphone.
    @Option(help: "The input's id (see `preflight devices`). Default: the default input.")
    public var input: String?
    /// The speaker.
    @Option(help: "The output's id. Default: the default output.")
    public var output: String?
    /// Which audio server.
    @OptionGroup public var audio: AudioSystemOptions
    /// The edge, a token whose outgoing application is record-playback, the edge's CA file and
    /// the signaling timeout.
    @OptionGroup(title: "Edge")
    public var connection: EdgeConnectionOptions
    /// Print JSON.
    @Flag(help: "Print the result as JSON.")
    public var json = false

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// Checks the arguments' combinations (the interval's range is the SDK's: a coded error).
    public mutating func validate() throws {
        try connection.requireTogether()
    }

    /// Runs the test and prints its result.
    public func run() async throws {
        switch await execute(progress: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }) {
        case .success(let text): print(text)
        case .failure(let error): throw CommandFailure(error)
        }
    }

    /// Runs the test; `progress` gets what to tell the person speaking.
    func execute(progress: @escaping @Sendable (String) -> Void) async -> Result<String, PreflightError> {
        do {
            if let remote = connection.remote {
                return try await .success(runTest(edgeURL: remote.edgeURL, token: remote.token, progress: progress))
            }
            let text = try await LocalEdge.withRunning { local in
                progress("preflight: local edge at \(local.signalingURL)")
                return try await runTest(edgeURL: local.signalingURL, token: try await local.token(application: .recordPlayback), progress: progress)
            }
            return .success(text)
        } catch let error as PreflightError {
            return .failure(error)
        } catch {
            return .failure(PreflightError(code: .invalidArgument, message: "\(error)", underlying: error))
        }
    }

    private func runTest(edgeURL: String, token: String, progress: @escaping @Sendable (String) -> Void) async throws -> String {
        let test = EchoTest(
            options: EchoTestOptions(
                accessToken: token, edgeURL: edgeURL, inputDevice: input, outputDevice: output,
                audioSystem: audio.diagnostics.configuration.audioSystem, edgeTrustedCertificatesFile: connection.edgeCAFile,
                signalingTimeout: connection.timeout))
        progress("speak now: the edge records \(interval) s, then plays it back")
        let result = try await withTaskCancellationHandler {
            try await test.startEchoTest(interval: interval)
        } onCancel: {
            test.stopEchoTest()
        }
        if json { return try JSONText.pretty(result) }
        return Self.summary(result)
    }

    static func summary(_ result: EchoTestResult) -> String {
        let stats = result.report.networkStats
        var lines = [
            String(
                format: "recorded %.1f s from %@, played back %.1f s on %@%@", result.recordedSeconds,
                UntrustedText.excerpt(result.inputDevice, limit: 120), result.playedBackSeconds,
                UntrustedText.excerpt(result.outputDevice, limit: 120), result.stoppedEarly ? " (stopped early)" : ""),
            "delay " + (result.delay.map { String(format: "%.2f s", $0) } ?? "-") + " (the interval is \(result.interval) s), correlation "
                + (result.correlation.map { String(format: "%.2f", $0) } ?? "-"),
            String(format: "network: rtt %.1f ms, jitter %.1f ms, mos %.2f", stats.rtt.average, stats.jitter.average, stats.mos.average),
        ]
        if !result.microphoneHeardSound {
            lines.append("silent: the microphone heard nothing (muted, the wrong device, or nobody spoke)")
        } else if result.heardBack {
            lines.append("heard back: the microphone, the network and the speaker work")
        } else {
            lines.append("not heard back: what came back does not match what was said")
        }
        return lines.joined(separator: "\n")
    }
}

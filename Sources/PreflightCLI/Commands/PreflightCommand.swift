import ArgumentParser
import Foundation
import PreflightCore

/// The `preflight` command: pre-call diagnostics for voice and video calling.
public struct PreflightCommand: AsyncParsableCommand {
    /// The command's name, abstract and version.
    public static let configuration = CommandConfiguration(
        commandName: "preflight",
        abstract: "Pre-call diagnostics for voice and video calling.",
        discussion: """
            Runs a preflight test call against an edge server and reports RTT, jitter, loss, MOS \
            and connectivity. With no subcommand, `run` starts a local edge on 127.0.0.1 and \
            runs a 10-second echo test against it.
            """,
        version: PreflightVersion.current,
        subcommands: [RunCommand.self, PathCommand.self, ServeCommand.self, TokenCommand.self, LoadCommand.self, CallCommand.self, ListenCommand.self, ProbeCommand.self, CheckCommand.self, DiagnoseCommand.self, ReportCommand.self,
            DevicesCommand.self, NetworksCommand.self, MicCheckCommand.self, SpeakerCheckCommand.self, CameraCheckCommand.self, EchoTestCommand.self,
        ],
        defaultSubcommand: RunCommand.self
    )

    /// Creates the command (ArgumentParser requirement).
    public init() {}

}

extension PreflightCommand {
    /// Parses the process arguments, runs the chosen (sub)command and exits with its status.
    ///
    /// The executable's `main.swift` calls this; it routes asynchronous subcommands through
    /// `run() async` on every platform.
    public static func runFromProcessArguments() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            // `error <code>: <message>`, as docs/errors.md promises, without ArgumentParser's prefix.
            FileHandle.standardError.write(Data("\(failure.description)\n".utf8))
            exit(withError: ExitCode.failure)
        } catch {
            exit(withError: error)
        }
    }
}

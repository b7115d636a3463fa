import ArgumentParser
import PreflightCore

/// The `preflight` command: pre-call diagnostics for voice and video calling.
public struct PreflightCommand: AsyncParsableCommand {
    /// The command's name, abstract and version.
    public static let configuration = CommandConfiguration(
        commandName: "preflight",
        abstract: "Pre-call diagnostics for voice and video calling.",
        discussion: """
            Runs a preflight test call against an edge server and reports RTT, jitter, loss, MOS \
            and connectivity. The test call and the edge server arrive with the next releases; \
            this build ships the measurement core.
            """,
        version: PreflightVersion.current,
        subcommands: [TokenCommand.self]
    )

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// Runs the command.
    public func run() async throws {
        print("preflight \(PreflightVersion.current): the measurement core is ready; the test call is not yet built.")
    }
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
        } catch {
            exit(withError: error)
        }
    }
}

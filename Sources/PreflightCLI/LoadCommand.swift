import ArgumentParser
import Foundation
import PreflightCore
import PreflightEdge

/// `preflight load`: N concurrent echo sessions against one edge, with the edge's throughput, CPU
/// and echo latency.
public struct LoadCommand: AsyncParsableCommand {
    /// The subcommand's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Load benchmark: N concurrent echo sessions against one edge; prints packets/s, CPU and echo latency.",
        discussion: """
            By default the edge runs as a child process (`preflight serve` on ephemeral loopback \
            ports), so its CPU time is measured apart from the load generator's. Each session signs \
            in over WebSocket, passes an ICE check and sends 50 RTP packets a second; echo latency is \
            each echo's arrival (stamped on the event loop) minus its send time.
            """
    )

    /// Concurrent sessions.
    @Option(help: "Concurrent echo sessions (1-2000).")
    public var sessions: Int = 100

    /// Seconds of media.
    @Option(help: "Seconds of media after every session is connected (1-120).")
    public var duration: Int = 10

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// Checks the arguments before running.
    public func validate() throws {
        guard (1...2000).contains(sessions) else { throw ValidationError("--sessions must be 1 to 2000, got \(sessions)") }
        guard (1...120).contains(duration) else { throw ValidationError("--duration must be 1 to 120, got \(duration)") }
    }

    /// Runs the benchmark and prints its figures.
    public func run() async throws {
        do {
            let result = try await LoadRun(sessions: sessions, duration: .seconds(duration)).run { line in
                FileHandle.standardError.write(Data((line + "\n").utf8))
            }
            print(result.description)
        } catch let error as PreflightError {
            throw CommandFailure(error)
        }
    }
}

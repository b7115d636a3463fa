import ArgumentParser
import Foundation
import PreflightCore
import PreflightEdge

/// `preflight load`: N concurrent echo sessions (`--sessions`) or N concurrent two-party calls
/// (`--calls`) through one edge, with the edge's throughput, CPU and echo or bridge latency.
public struct LoadCommand: AsyncParsableCommand {
    /// The subcommand's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Load benchmark: N concurrent echo sessions or two-party calls through one edge; prints packets/s, CPU and latency.",
        discussion: """
            The edge runs as a child process (`preflight serve` on ephemeral loopback ports), so its \
            CPU time is measured apart from the load generator's. Give exactly one of --sessions and \
            --calls. With --sessions, each session signs in over WebSocket, passes an ICE check and \
            sends 50 RTP packets a second to the echo; echo latency is each echo's arrival (stamped \
            on the event loop) minus its send time. With --calls, each call is two clients: the \
            callee registers, the caller invites client:<callee>, the callee accepts, both pass ICE \
            and send 50 PCMU packets a second through the edge's bridge; bridge latency is each \
            packet's arrival at the other party minus the send time carried in its payload.
            """
    )

    /// Concurrent echo sessions.
    @Option(help: "Concurrent echo sessions (1-2000).")
    public var sessions: Int?

    /// Concurrent two-party calls.
    @Option(help: "Concurrent two-party calls through the edge's bridge (1-1000).")
    public var calls: Int?

    /// Seconds of media.
    @Option(help: "Seconds of media after every session is connected (1-120).")
    public var duration: Int = 10

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// Checks the arguments before running.
    public func validate() throws {
        switch (sessions, calls) {
        case (nil, nil), (.some, .some): throw ValidationError("give exactly one of --sessions (echo sessions) and --calls (two-party calls)")
        case (let sessions?, nil):
            guard (1...2000).contains(sessions) else { throw ValidationError("--sessions must be 1 to 2000, got \(sessions)") }
        case (nil, let calls?):
            guard (1...1000).contains(calls) else { throw ValidationError("--calls must be 1 to 1000, got \(calls)") }
        }
        guard (1...120).contains(duration) else { throw ValidationError("--duration must be 1 to 120, got \(duration)") }
    }

    /// Runs the benchmark and prints its figures.
    public func run() async throws {
        let progress: @Sendable (String) -> Void = { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
        do {
            if let calls {
                print(try await CallLoadRun(calls: calls, duration: .seconds(duration)).run(progress: progress).description)
            } else {
                print(try await LoadRun(sessions: sessions ?? 100, duration: .seconds(duration)).run(progress: progress).description)
            }
        } catch let error as PreflightError {
            throw CommandFailure(error)
        }
    }
}

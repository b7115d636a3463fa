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
    @Option(help: "Concurrent two-party calls through the edge's bridge (1-1000; 1-8000 with --generator).")
    public var calls: Int?

    /// Plain RTP instead of SRTP for the --generator's calls.
    @Flag(help: "With --calls and --generator: plain RTP on both legs instead of SRTP (AEAD_AES_128_GCM).")
    public var plain = false

    /// Seconds of media.
    @Option(help: "Seconds of media after every session is connected (1-120).")
    public var duration: Int = 10

    /// An outside generator that sends the sessions' media instead of this process.
    @Option(help: ArgumentHelp(
        "An outside load generator (Benchmarks/Load/loadgen) that sends the sessions' or calls' media and measures the edge itself.",
        discussion: "The edge and the signaling run here; the generator gets `--mode edge --sessions-file F --server-pid PID` (--sessions) or `--mode calls --calls-file F --server-pid PID` (--calls) and the arguments after `--`."))
    public var generator: String?

    /// Threads serving the edge's media socket (passed to `preflight serve --media-threads`).
    @Option(help: "Threads serving the edge's media, each on its own SO_REUSEPORT socket (1-64).")
    public var mediaThreads: Int = 1

    /// Edges already running: the callers'.
    @Option(name: .customLong("edge-url"), help: ArgumentHelp(
        "Place the --calls on this running edge instead of one started here (tokens from PREFLIGHT_API_KEY, PREFLIGHT_API_SECRET, PREFLIGHT_ACCOUNT).",
        discussion: "With --callee-edge-url the callees register on another edge of the same database: calls across edges."))
    public var edgeURL: String?

    /// The callees' edge (with --edge-url).
    @Option(name: .customLong("callee-edge-url"), help: "The edge the callees register on (default: --edge-url).")
    public var calleeEdgeURL: String?

    /// The parties' address (with --edge-url).
    @Option(help: "The IPv4 address the parties bind and offer as their host candidate (with --edge-url; default 127.0.0.1).")
    public var address: String = "127.0.0.1"

    /// Running edges whose CPU is measured (with --edge-url).
    @Option(name: .customLong("edge-pid"), help: "name=pid of an edge process whose CPU time over the media window is printed (with --edge-url); repeat for more.")
    public var edgePIDs: [String] = []

    /// What follows `--`: the generator's own arguments.
    @Argument(parsing: .postTerminator, help: "Arguments for the --generator, after `--`.")
    public var generatorArguments: [String] = []

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// Checks the arguments before running.
    public func validate() throws {
        switch (sessions, calls) {
        case (nil, nil), (.some, .some): throw ValidationError("give exactly one of --sessions (echo sessions) and --calls (two-party calls)")
        case (let sessions?, nil):
            // An outside generator needs no client of its own per session: more fit.
            let limit = generator == nil ? 2000 : 16_000
            guard (1...limit).contains(sessions) else { throw ValidationError("--sessions must be 1 to \(limit), got \(sessions)") }
        case (nil, let calls?):
            // An outside generator's legs are lines of a file, not clients with sockets of their own.
            let limit = generator == nil ? 1000 : 8000
            guard (1...limit).contains(calls) else { throw ValidationError("--calls must be 1 to \(limit), got \(calls)") }
        }
        guard (1...120).contains(duration) else { throw ValidationError("--duration must be 1 to 120, got \(duration)") }
        guard (1...64).contains(mediaThreads) else { throw ValidationError("--media-threads must be 1 to 64, got \(mediaThreads)") }
        if plain, calls == nil || generator == nil { throw ValidationError("--plain goes with --calls and --generator") }
        if generator != nil, edgeURL != nil { throw ValidationError("--generator runs its own edge: no --edge-url") }
        if generator == nil, !generatorArguments.isEmpty { throw ValidationError("arguments after `--` are for a --generator") }
        if edgeURL == nil, calleeEdgeURL != nil || !edgePIDs.isEmpty || address != "127.0.0.1" {
            throw ValidationError("--callee-edge-url, --address and --edge-pid go with --edge-url")
        }
        if edgeURL != nil, calls == nil { throw ValidationError("--edge-url runs --calls, not --sessions") }
        for url in [edgeURL, calleeEdgeURL].compactMap({ $0 }) where !(url.hasPrefix("ws://") || url.hasPrefix("wss://")) {
            throw ValidationError("an edge URL must be ws:// or wss://, got \(url)")
        }
        guard TransportAddress(ipv4: address, port: 0) != nil else { throw ValidationError("--address must be an IPv4 address, got \(address)") }
        guard edgePIDs.count <= 16 else { throw ValidationError("at most 16 --edge-pid, got \(edgePIDs.count)") }
        _ = try parsedEdgePIDs()
    }

    /// `--edge-pid name=pid`, each checked.
    func parsedEdgePIDs() throws -> [(name: String, pid: Int32)] {
        try edgePIDs.map { text in
            let parts = text.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, !parts[0].isEmpty, parts[0].count <= 32, let pid = Int32(parts[1]), pid > 0 else {
                throw ValidationError("--edge-pid must be name=pid (a name of 1-32 characters, a positive pid), got \(text)")
            }
            return (String(parts[0]), pid)
        }
    }

    /// The running edges of --edge-url, their tokens made with the environment's API key.
    func runningEdges() async throws -> CallLoadRun.Edges? {
        guard let edgeURL else { return nil }
        let environment = ProcessInfo.processInfo.environment
        guard let secret = environment["PREFLIGHT_API_SECRET"], !secret.isEmpty else {
            throw ValidationError("--edge-url needs PREFLIGHT_API_SECRET (and PREFLIGHT_API_KEY, PREFLIGHT_ACCOUNT unless the defaults) to make the parties' tokens")
        }
        let issuer = try await AccessTokenIssuer(
            apiKeySID: environment["PREFLIGHT_API_KEY"] ?? LocalEdge.apiKeySID, apiKeySecret: secret,
            accountSID: environment["PREFLIGHT_ACCOUNT"] ?? LocalEdge.accountSID)
        return CallLoadRun.Edges(
            callerURL: edgeURL, calleeURL: calleeEdgeURL ?? edgeURL, address: address,
            token: { identity, incoming throws(PreflightError) in
                try await LocalEdge.callToken(issuer: issuer, identity: identity, answerOnBridge: false, incomingAllow: incoming)
            },
            processes: try parsedEdgePIDs())
    }

    /// Runs the benchmark and prints its figures.
    public func run() async throws {
        let progress: @Sendable (String) -> Void = { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
        do {
            if let generator, let calls {
                let status = try await CallGeneratorRun(
                    calls: calls, plain: plain, generator: generator, generatorArguments: generatorArguments,
                    edgeArguments: ["--media-threads", "\(mediaThreads)"]
                ).run(progress: progress)
                if status != 0 { throw ExitCode(status) }
            } else if let generator {
                let status = try await LoadGeneratorRun(
                    sessions: sessions ?? 100, generator: generator, generatorArguments: generatorArguments,
                    edgeArguments: ["--media-threads", "\(mediaThreads)"]
                ).run(progress: progress)
                if status != 0 { throw ExitCode(status) }
            } else if let calls {
                var run = CallLoadRun(calls: calls, duration: .seconds(duration))
                run.edges = try await runningEdges()
                print(try await run.run(progress: progress).description)
            } else {
                print(try await LoadRun(sessions: sessions ?? 100, duration: .seconds(duration)).run(progress: progress).description)
            }
        } catch let error as PreflightError {
            throw CommandFailure(error)
        }
    }
}

import ArgumentParser
import PreflightCLI
import Testing

/// Each argument rule of `call`, `listen` and `load --calls`: the arguments that break it, and the
/// message that names it.
@Suite struct CallValidationRuleTests {
    static let edge = ["--edge-url", "ws://127.0.0.1:9/signaling", "--token", "a.b.c"]

    @Test(arguments: [
        (["call", "--to", ""], "--to must not be empty"),
        (["call", "--to", "client:"], "--to client: needs an identity, e.g. client:bob"),
        (["call", "--to", "client:bob", "--duration", "0"], "--duration must be 1 to 3600 seconds, got 0"),
        (["call", "--to", "client:bob", "--digits", "12a"], "--digits must be 1 to 256 of 0-9, *, # and w, got \"12a\""),
        (["call", "--to", "client:bob", "--digits", ""], "--digits must be 1 to 256 of 0-9, *, # and w, got \"\""),
        (["call", "--to", "client:bob", "--duration", "3601"], "--duration must be 1 to 3600 seconds, got 3601"),
        (["call", "--to", "client:bob", "--signaling-timeout", "0"], "--signaling-timeout must be 1 to 120 seconds, got 0"),
        (["call", "--to", "client:bob", "--token", "a.b.c"], "--edge-url and --token go together"),
        (["call", "--to", "client:bob", "--edge-url", "ws://127.0.0.1:9/signaling"], "--edge-url and --token go together"),
        (
            ["call", "--to", "client:bob", "--answer-on-bridge"] + edge,
            "--answer-on-bridge chooses the local edge's dial application; with --edge-url the token's grant chooses it"
        ),
        (["call", "--to", "client:bob", "--edge-ca-file", "/ca.pem"], "--edge-ca-file is for a wss:// or https:// --edge-url; the local edge is ws:// on loopback"),
        (
            ["call", "--to", "client:bob", "--turn-username", "lab", "--turn-credential", "pass"],
            "TURN credentials (--turn-username, --turn-secret-file) need a turn: or turns: --ice-server"
        ),
        (["call", "--to", "client:bob", "--ice-server", "turn:127.0.0.1:3478", "--turn-username", "lab"], "--turn-username and --turn-credential go together"),
    ] as [([String], String)])
    func callRefuses(arguments: [String], rule: String) {
        #expect(ValidationRuleTests.rejection(arguments) == rule)
    }

    @Test(arguments: [
        (["listen"] + edge + ["--calls", "0"], "--calls must be 1 to 100000, got 0"),
        (["listen"] + edge + ["--identity", ""], "--identity must not be empty"),
        (["listen", "--edge-url", "", "--token", "a.b.c"], "--edge-url must not be empty"),
        (["listen", "--edge-url", "ws://127.0.0.1:9/signaling", "--token", ""], "--token must not be empty"),
        (["listen"] + edge + ["--signaling-timeout", "121"], "--signaling-timeout must be 1 to 120 seconds, got 121"),
        (["load", "--calls", "0"], "--calls must be 1 to 1000, got 0"),
        (["load", "--calls", "1001"], "--calls must be 1 to 1000, got 1001"),
        (["load", "--calls", "2", "--sessions", "2"], "give exactly one of --sessions (echo sessions) and --calls (two-party calls)"),
        (["load"], "give exactly one of --sessions (echo sessions) and --calls (two-party calls)"),
        (["load", "--calls", "2", "--duration", "0"], "--duration must be 1 to 120, got 0"),
        (["load", "--sessions", "2001"], "--sessions must be 1 to 2000, got 2001"),
        (["load", "--sessions", "16001", "--generator", "/bin/true"], "--sessions must be 1 to 16000, got 16001"),
        (["load", "--calls", "8001", "--generator", "/bin/true"], "--calls must be 1 to 8000, got 8001"),
        (["load", "--calls", "2", "--plain"], "--plain goes with --calls and --generator"),
        (["load", "--sessions", "2", "--generator", "/bin/true", "--plain"], "--plain goes with --calls and --generator"),
        (["load", "--calls", "2", "--generator", "/bin/true", "--edge-url", "ws://127.0.0.1:9/signaling"], "--generator runs its own edge: no --edge-url"),
        (["load", "--sessions", "2", "--", "--cpu", "1"], "arguments after `--` are for a --generator"),
        (["load", "--sessions", "2", "--media-threads", "0"], "--media-threads must be 1 to 64, got 0"),
        (["listen"] + edge + ["--fallback-edge-url", "http://127.0.0.1:9/"], "--fallback-edge-url must be a ws:// or wss:// URL, got http://127.0.0.1:9/"),
        (["listen"] + edge + Array(repeating: ["--fallback-edge-url", "ws://127.0.0.1:9/signaling"], count: 17).flatMap { $0 },
         "at most 16 --fallback-edge-url, got 17"),
        (["load", "--calls", "2", "--callee-edge-url", "ws://127.0.0.1:9/signaling"], "--callee-edge-url, --address and --edge-pid go with --edge-url"),
        (["load", "--calls", "2", "--edge-pid", "edge=1"], "--callee-edge-url, --address and --edge-pid go with --edge-url"),
        (["load", "--sessions", "2", "--edge-url", "ws://127.0.0.1:9/signaling"], "--edge-url runs --calls, not --sessions"),
        (["load", "--calls", "2", "--edge-url", "http://127.0.0.1:9/"], "an edge URL must be ws:// or wss://, got http://127.0.0.1:9/"),
        (["load", "--calls", "2", "--edge-url", "ws://127.0.0.1:9/signaling", "--address", "example.com"],
         "--address must be an IPv4 address, got example.com"),
        (["load", "--calls", "2", "--edge-url", "ws://127.0.0.1:9/signaling", "--edge-pid", "edge=-4"],
         "--edge-pid must be name=pid (a name of 1-32 characters, a positive pid), got edge=-4"),
        (["load", "--calls", "2", "--edge-url", "ws://127.0.0.1:9/signaling", "--edge-pid", "=12"],
         "--edge-pid must be name=pid (a name of 1-32 characters, a positive pid), got =12"),
        (["serve", "--media-threads", "65"], "--media-threads (PREFLIGHT_MEDIA_THREADS) must be 1 to 64, got 65"),
        (["serve", "--ping-interval", "3601"], "--ping-interval (PREFLIGHT_PING_INTERVAL) must be 0 to 3600, got 3601"),
    ] as [([String], String)])
    func listenAndLoadRefuse(arguments: [String], rule: String) {
        #expect(ValidationRuleTests.rejection(arguments) == rule)
    }

    /// What ArgumentParser requires itself: `--to` for `call`, `--edge-url` and `--token` for
    /// `listen` (an edge started by `listen` would have no callers), a known `--answer`.
    @Test func requiredOptionsAreNamed() {
        #expect(ValidationRuleTests.rejection(["call"])?.contains("--to") == true)
        #expect(ValidationRuleTests.rejection(["listen", "--token", "a.b.c"])?.contains("--edge-url") == true)
        #expect(ValidationRuleTests.rejection(["listen", "--edge-url", "ws://127.0.0.1:9/signaling"])?.contains("--token") == true)
        #expect(ValidationRuleTests.rejection(["listen", "--answer", "maybe"] + Self.edge)?.contains("--answer") == true)
    }

    @Test func defaultsParse() throws {
        let call = try #require(try PreflightCommand.parseAsRoot(["call", "--to", "client:bob"]) as? CallCommand)
        #expect(call.duration == 10)
        #expect(call.connection.edgeURL == nil)
        #expect(!call.json)
        let listen = try #require(try PreflightCommand.parseAsRoot(["listen"] + Self.edge) as? ListenCommand)
        #expect(listen.answer == .auto)
        #expect(listen.calls == nil)
        let load = try #require(try PreflightCommand.parseAsRoot(["load", "--calls", "3"]) as? LoadCommand)
        #expect(load.calls == 3)
        #expect(load.sessions == nil)
    }
}

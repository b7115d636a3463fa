import ArgumentParser
import PreflightCLI
import Testing

/// The edge's four options are one group with one set of rules in every command that talks to an
/// edge: the same names, the same old spelling, the same ranges and the same messages.
@Suite struct EdgeConnectionOptionsTests {
    /// Each edge command with the arguments it needs besides the edge's.
    static let commands: [[String]] = [
        ["run"], ["probe"], ["check"], ["call", "--to", "client:bob"], ["diagnose"], ["echo-test"], ["listen"],
    ]

    static let url = "ws://127.0.0.1:9/signaling"

    @Test(arguments: commands)
    func everyCommandSharesTheRules(command: [String]) {
        let edge = ["--edge-url", Self.url, "--token", "a.b.c"]
        #expect(
            ValidationRuleTests.rejection(command + edge + ["--signaling-timeout", "121"])
                == "--signaling-timeout must be 1 to 120 seconds, got 121")
        #expect(
            ValidationRuleTests.rejection(command + edge + ["--signaling-timeout", "0"])
                == "--signaling-timeout must be 1 to 120 seconds, got 0")
        #expect(
            ValidationRuleTests.rejection(command + edge + ["--edge", Self.url])
                == "--edge is the old spelling of --edge-url: give --edge-url only")
        #expect(ValidationRuleTests.rejection(command + ["--edge-url", "", "--token", "a.b.c"]) == "--edge-url must not be empty")
        #expect(ValidationRuleTests.rejection(command + ["--edge-url", Self.url, "--token", ""]) == "--token must not be empty")
        #expect(
            ValidationRuleTests.rejection(command + ["--token", "a.b.c", "--edge-ca-file", "/ca.pem"])
                == "--edge-ca-file is for a wss:// or https:// --edge-url; the local edge is ws:// on loopback")
    }

    /// `--edge` (the old spelling) still works everywhere, and lands where `--edge-url` does.
    @Test(arguments: commands)
    func theOldSpellingStillWorks(command: [String]) throws {
        let parsed = try PreflightCommand.parseAsRoot(command + ["--edge", Self.url, "--token", "a.b.c", "--signaling-timeout", "7"])
        let connection: EdgeConnectionOptions? =
            switch parsed {
            case let run as RunCommand: run.connection
            case let probe as ProbeCommand: probe.connection
            case let check as CheckCommand: check.connection
            case let call as CallCommand: call.connection
            case let diagnose as DiagnoseCommand: diagnose.connection
            case let echoTest as EchoTestCommand: echoTest.connection
            case let listen as ListenCommand: listen.connection
            default: nil
            }
        let options = try #require(connection, "\(type(of: parsed))")
        #expect(options.edgeURL == Self.url)
        #expect(options.token == "a.b.c")
        #expect(options.timeout == .seconds(7))
        #expect(options.remote?.edgeURL == Self.url)
    }

    /// Without `--edge-url` and `--token`, every command but `listen` starts an edge of its own;
    /// `listen` says why it needs one.
    @Test(arguments: commands)
    func halfAnEdgeIsRefused(command: [String]) {
        let expected =
            command == ["listen"]
            ? "listen needs --edge-url and --token: an edge started by this command would have no callers"
            : "--edge-url and --token go together"
        #expect(ValidationRuleTests.rejection(command + ["--token", "a.b.c"]) == expected)
        #expect(ValidationRuleTests.rejection(command + ["--edge-url", Self.url]) == expected)
    }

    /// The report commands name the edge and its CA file the same way.
    @Test func reportCommandsTakeTheSameNames() throws {
        let list = try #require(
            try PreflightCommand.parseAsRoot(["report", "list", "--edge", "http://127.0.0.1:9", "--ca-file", "/ca.pem"]) as? ReportListCommand)
        #expect(list.api.edgeURL == "http://127.0.0.1:9")
        #expect(list.api.edgeCAFile == "/ca.pem")
        #expect(
            ValidationRuleTests.rejection(["report", "list", "--edge", "http://a:1", "--edge-url", "http://a:1"])
                == "--edge is the old spelling of --edge-url: give --edge-url only")
    }
}

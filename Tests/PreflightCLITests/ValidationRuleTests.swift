import ArgumentParser
import Foundation
import PreflightCLI
import PreflightCore
import PreflightEdge
import Testing

/// Each argument rule of `run`, `serve` and `token`: the arguments that break it, and the message
/// that names it (so that a test fails when another rule fires instead).
@Suite struct ValidationRuleTests {
    /// The message ArgumentParser prints for `arguments`, after checking that parsing refuses them.
    static func rejection(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        let error = #expect(throws: (any Error).self, sourceLocation: sourceLocation) {
            try PreflightCommand.parseAsRoot(arguments)
        }
        return error.map { PreflightCommand.message(for: $0) }
    }

    static let turn = "turn:127.0.0.1:3478?transport=udp"

    @Test(arguments: [
        (["run", "--duration", "0"], "--duration must be 1 to 300 seconds or adaptive[:MAX], got \"0\""),
        (["run", "--duration", "301"], "--duration must be 1 to 300 seconds or adaptive[:MAX], got \"301\""),
        (["run", "--duration", "fast"], "--duration must be 1 to 300 seconds or adaptive[:MAX], got \"fast\""),
        (["run", "--diagnose-path", "--path-probe-share", "60"], "path diagnosis: the probe share must be 0.001–0.5, got 0.6"),
        (["path", "--path-max-hops", "65"], "path diagnosis: the maximum hop count must be 1–64, got 65"),
        (["path", "--private-network", "198.18.40.0/33"], "path diagnosis: not a prefix length 0–32: \"198.18.40.0/33\""),
        (["run", "--diagnose-path", "--private-network", "home"], "path diagnosis: not an address block: \"home\""),
        (["run", "--duration", "adaptive:1"], "--duration adaptive:MAX needs MAX from 2 to 300 seconds, got \"adaptive:1\""),
        (["run", "--duration", "adaptive:x"], "--duration adaptive:MAX needs MAX from 2 to 300 seconds, got \"adaptive:x\""),
        (["run", "--continue-after-settling"], "--continue-after-settling needs --duration adaptive[:MAX]"),
        (["run", "--duration", "12", "--continue-after-settling"], "--continue-after-settling needs --duration adaptive[:MAX]"),
        (["run", "--signaling-timeout", "121"], "--signaling-timeout must be 1 to 120 seconds, got 121"),
        (["run", "--edge-url", "ws://127.0.0.1:9/signaling"], "--edge-url and --token go together"),
        (["run", "--token", "a.b.c"], "--edge-url and --token go together"),
        (
            ["run", "--edge-url", "ws://127.0.0.1:9/signaling", "--token", "a.b.c", "--application", "echo"],
            "--application chooses the local edge's application; with --edge-url the token's grant chooses it"
        ),
        (["run", "--edge-ca-file", "/ca.pem"], "--edge-ca-file is for a wss:// or https:// --edge-url; the local edge is ws:// on loopback"),
        (
            ["run", "--edge", "ws://127.0.0.1:9/signaling", "--edge-url", "ws://127.0.0.1:9/signaling", "--token", "a.b.c"],
            "--edge is the old spelling of --edge-url: give --edge-url only"
        ),
        (["run", "--app", "echo", "--application", "echo"], "--app is the old spelling of --application: give --application only"),
        (["run", "--ice-server", turn, "--turn-username", "lab"], "--turn-username and --turn-credential go together"),
        (["run", "--ice-server", turn, "--turn-credential", "pass"], "--turn-username and --turn-credential go together"),
        (
            ["run", "--ice-server", turn, "--turn-username", "lab", "--turn-credential", "pass", "--turn-secret", "s"],
            "TURN credentials are fixed (--turn-username, --turn-credential) or made from a TURN secret (--turn-secret-file), not both"
        ),
        (
            ["run", "--ice-server", turn, "--turn-secret", "s", "--turn-secret-file", "/s"],
            "give the TURN secret once: --turn-secret or --turn-secret-file, not both"
        ),
        (["run", "--turn-secret", "s"], "TURN credentials (--turn-username, --turn-secret-file) need a turn: or turns: --ice-server"),
        (
            ["run", "--ice-server", "stun:127.0.0.1:3478", "--turn-username", "lab", "--turn-credential", "pass"],
            "TURN credentials (--turn-username, --turn-secret-file) need a turn: or turns: --ice-server"
        ),
        (["run", "--ice-timeout", "0"], "--ice-timeout must be more than 0 and at most 300 seconds, got 0.0"),
        (["run", "--consent-timeout", "301"], "--consent-timeout must be more than 0 and at most 300 seconds, got 301.0"),
    ] as [([String], String)])
    func runRefuses(arguments: [String], rule: String) {
        #expect(Self.rejection(arguments) == rule)
    }

    @Test(arguments: [
        (["serve", "--port", "70000"], "--port (PREFLIGHT_PORT) must be 0 to 65535, got 70000"),
        (["serve", "--media-port", "65536"], "--media-port (PREFLIGHT_MEDIA_PORT) must be 0 to 65535, got 65536"),
        (["serve", "--advertise-port", "0"], "--advertise-port (PREFLIGHT_ADVERTISE_PORT) must be 1 to 65535, got 0"),
        (["serve", "--max-sessions", "0"], "--max-sessions (PREFLIGHT_MAX_SESSIONS) must be positive, got 0"),
        (
            ["serve", "--max-sessions-per-identity", "0"],
            "--max-sessions-per-identity (PREFLIGHT_MAX_SESSIONS_PER_IDENTITY) must be positive, got 0"
        ),
        (["serve", "--signaling-timeout", "3601"], "--signaling-timeout (PREFLIGHT_SIGNALING_TIMEOUT) must be 1 to 3600, got 3601"),
        (["serve", "--header-timeout", "0"], "--header-timeout (PREFLIGHT_HEADER_TIMEOUT) must be positive, got 0"),
        (["serve", "--ipv6-prefix-length", "31"], "--ipv6-prefix-length (PREFLIGHT_IPV6_PREFIX_LENGTH) must be 32 to 128, got 31"),
        (["serve", "--ipv6-prefix-length", "129"], "--ipv6-prefix-length (PREFLIGHT_IPV6_PREFIX_LENGTH) must be 32 to 128, got 129"),
        (
            ["serve", "--turn-credential-lifetime", "0"],
            "--turn-credential-lifetime (PREFLIGHT_TURN_CREDENTIAL_LIFETIME) must be positive, got 0"
        ),
        (["serve", "--packet-rate", "0"], "--packet-rate must be positive, got 0.0"),
        (["serve", "--application", "AP1=jukebox"], "--application must be SID=echo, SID=record-playback, SID=dial or SID=dial:answer-on-bridge, got \"AP1=jukebox\""),
        (["serve", "--application", "=echo"], "--application must be SID=echo, SID=record-playback, SID=dial or SID=dial:answer-on-bridge, got \"=echo\""),
        (["serve", "--route", "+15550100=nowhere"], "--route must be TO=client:IDENTITY, TO=echo or TO=record-playback, got \"+15550100=nowhere\""),
        (["serve", "--route", "+15550100=client:"], "--route must be TO=client:IDENTITY, TO=echo or TO=record-playback, got \"+15550100=client:\""),
        (["serve", "--ring-timeout", "0"], "--ring-timeout (PREFLIGHT_RING_TIMEOUT) must be 1 to 3600, got 0"),
        (["serve", "--max-call-duration", "0"], "--max-call-duration (PREFLIGHT_MAX_CALL_DURATION) must be positive, got 0"),
        (["serve", "--invite-rate", "0"], "--invite-rate must be positive, got 0.0"),
        (["serve", "--max-logged-calls", "0"], "--max-logged-calls (PREFLIGHT_MAX_LOGGED_CALLS) must be 1 to 10000000, got 0"),
        (
            ["serve", "--max-logged-calls-per-account", "10000001"],
            "--max-logged-calls-per-account (PREFLIGHT_MAX_LOGGED_CALLS_PER_ACCOUNT) must be 1 to 10000000, got 10000001"
        ),
        (["serve", "--app", "AP1=echo", "--application", "AP2=echo"], "--app is the old spelling of --application: give --application only"),
        (["serve", "--ice-server", "turn:127.0.0.1:3478", "--turn-username", "lab"], "--turn-username and --turn-credential go together"),
        (
            ["serve", "--turn-username", "lab", "--turn-credential", "pass", "--turn-secret-file", "/s"],
            "TURN credentials are fixed (--turn-username, --turn-credential) or made from a TURN secret (--turn-secret-file), not both"
        ),
        (["serve", "--turn-secret", "s", "--turn-secret-file", "/s"], "give the TURN secret once: --turn-secret or --turn-secret-file, not both"),
        (["serve", "--api-secret", "s", "--api-secret-file", "/s"], "give the API key secret once: --api-secret or --api-secret-file, not both"),
        (["serve", "--log-level", "loud"], "--log-level must be one of trace, debug, info, notice, warning, error, critical"),
    ] as [([String], String)])
    func serveRefuses(arguments: [String], rule: String) {
        #expect(Self.rejection(arguments) == rule)
    }

    @Test(arguments: [
        (["token", "--identity", "a", "--ttl", "0"], "--ttl must be between 1 and 86400 seconds, got 0"),
        (["token", "--identity", "a", "--ttl", "90000"], "--ttl must be between 1 and 86400 seconds, got 90000"),
        (["token", "--identity", ""], "--identity must not be empty"),
        (["token", "--identity", "a", "--application", ""], "--application must not be empty"),
        (["token", "--identity", "a", "--api-secret", "s", "--api-secret-file", "/s"], "give the API key secret once: --api-secret or --api-secret-file, not both"),
    ] as [([String], String)])
    func tokenRefuses(arguments: [String], rule: String) {
        #expect(Self.rejection(arguments) == rule)
    }

    /// Rules ArgumentParser applies itself: a required option, a value that is not one of the choices.
    @Test func argumentParserNamesTheOptionItRefuses() {
        #expect(Self.rejection(["token"])?.contains("--identity") == true)
        #expect(Self.rejection(["run", "--application", "karaoke"])?.contains("--application") == true)
        #expect(Self.rejection(["run", "--ice-server", "http://127.0.0.1"])?.hasPrefix("--ice-server: ") == true)
        #expect(Self.rejection(["load", "--sessions", "0"]) == "--sessions must be 1 to 2000, got 0")
    }

    /// The old spellings still work, so that scripts written for them keep running.
    @Test func oldSpellingsStillParse() throws {
        let run = try #require(try PreflightCommand.parseAsRoot(["--app", "record-playback"]) as? RunCommand)
        #expect(run.application == .recordPlayback)
        let deployed = try #require(
            try PreflightCommand.parseAsRoot(["run", "--edge", "ws://127.0.0.1:9/signaling", "--token", "a.b.c"]) as? RunCommand)
        #expect(deployed.connection.edgeURL == "ws://127.0.0.1:9/signaling")
        let serve = try #require(try PreflightCommand.parseAsRoot(["serve", "--app", "AP1=echo"]) as? ServeCommand)
        #expect(serve.applications == ["AP1=echo"])
    }

    @Test func tokenNamesTheLocalEdgesApplicationsByName() async throws {
        let secret = String(repeating: "s", count: 32)
        let command = try #require(
            try PreflightCommand.parseAsRoot([
                "token", "--identity", "a", "--account", "AC1", "--api-key", "SK1", "--api-secret", secret,
                "--application", "record-playback",
            ]) as? TokenCommand)
        let verifier = try await AccessTokenVerifier(configuration: .init(apiKeys: ["SK1": secret]))
        let claims = try await verifier.verify(try await command.mint(environment: [:]))
        #expect(claims.grants.voice?.outgoing?.applicationSID == LocalEdge.applicationSID(.recordPlayback))
    }

    @Test func runMakesTURNCredentialsFromTheSecret() throws {
        let command = try #require(
            try PreflightCommand.parseAsRoot(["run", "--ice-server", Self.turn, "--turn-secret", "lab-turn-secret"]) as? RunCommand)
        let servers = try command.extraICEServers(environment: [:])
        let server = try #require(servers.first)
        #expect(server.urls == [Self.turn])
        let username = try #require(server.username)
        let password = try #require(server.credential)
        #expect(TURNRESTCredentials.verify(
            username: username, password: password, secret: "lab-turn-secret", now: Int64(Date().timeIntervalSince1970)))
        let fixed = try #require(
            try PreflightCommand.parseAsRoot(["run", "--ice-server", Self.turn, "--turn-username", "u", "--turn-credential", "p"])
                as? RunCommand)
        #expect(try fixed.extraICEServers(environment: [:]) == [ICEServer(urls: [Self.turn], username: "u", credential: "p")])
    }
}

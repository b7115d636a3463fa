import ArgumentParser
import PreflightCLI
import PreflightCore
import PreflightEdge
import Foundation
import Synchronization
import PreflightTesting
import Testing

@Suite(.realTime) struct CommandTests {
    @Test func versionMatchesCore() {
        #expect(PreflightCommand.configuration.version == PreflightVersion.current)
    }

    @Test func rejectsUnknownOption() {
        #expect(throws: (any Error).self) { try PreflightCommand.parse(["--no-such-flag"]) }
    }
}

@Suite struct TokenCommandTests {
    static let secret = "lab-secret-0123456789abcdefghijklmnop"

    @Test func parsesAndValidates() throws {
        let command = try PreflightCommand.parseAsRoot([
            "token", "--identity", "alice", "--api-key", "SK1", "--api-secret", Self.secret, "--account", "AC1",
            "--application", "AP1", "--ttl", "600",
        ])
        let token = try #require(command as? TokenCommand)
        #expect(token.identity == "alice")
        #expect(token.ttl == 600)
        #expect(!token.incoming)
    }

    @Test func mintsATokenTheVerifierAccepts() async throws {
        let command = try #require(
            try PreflightCommand.parseAsRoot([
                "token", "--identity", "alice", "--api-key", "SK1", "--api-secret", Self.secret, "--account", "AC1",
                "--application", "AP1", "--ttl", "120",
            ]) as? TokenCommand)
        let token = try await command.mint()
        let verifier = try await AccessTokenVerifier(configuration: .init(apiKeys: ["SK1": Self.secret]))
        let claims = try await verifier.verify(token)
        #expect(claims.grants.identity == "alice")
        #expect(claims.grants.voice?.outgoing?.applicationSID == "AP1")
        #expect(claims.sub == "AC1")
        #expect((claims.exp ?? 0) - (claims.iat ?? 0) == 120)
    }

    @Test func shortSecretFailsWithItsCode() async throws {
        let command = try #require(
            try PreflightCommand.parseAsRoot([
                "token", "--identity", "alice", "--api-key", "SK1", "--api-secret", "short", "--account", "AC1",
            ]) as? TokenCommand)
        do {
            _ = try await command.mint()
            Issue.record("a short secret was accepted")
        } catch let failure as CommandFailure {
            #expect(failure.error.code == .invalidArgument)
            #expect(failure.description.hasPrefix("error 70005:"))
        }
    }
}

@Suite struct RunCommandTests {
    @Test func defaultRunAgainstTheLocalEdgePrintsProgressAndSummary() async throws {
        let command = try #require(try PreflightCommand.parseAsRoot(["--duration", "2"]) as? RunCommand)
        let lines = Mutex<[String]>([])
        let outcome = await command.execute(progress: { line in lines.withLock { $0.append(line) } }, output: { text in lines.withLock { $0.append(text) } })
        #expect(outcome.error == nil)
        let text = lines.withLock { $0.joined(separator: "\n") }
        #expect(text.contains("  1 s  rtt"))
        #expect(text.contains("Preflight test completed"))
        // The quality line names the report's band (loopback on a busy host need not be excellent).
        let quality = try #require(outcome.report.callQuality)
        #expect(text.contains("Quality      \(quality) (callQuality \(quality.rawValue))"), "\(text)")
        #expect(outcome.report.statsSamples.count == 2)
    }

    @Test func jsonPrintsTheReport() async throws {
        let command = try #require(try PreflightCommand.parseAsRoot(["run", "--duration", "1", "--json"]) as? RunCommand)
        let output = Mutex<String>("")
        let outcome = await command.execute(progress: { _ in }, output: { text in output.withLock { $0 += text } })
        #expect(outcome.error == nil)
        let report = try PreflightReport(jsonData: Data(output.withLock { $0 }.utf8))
        #expect(report == outcome.report)
    }

    @Test func unreachableEdgeFailsWithItsCode() async throws {
        let command = try #require(
            try PreflightCommand.parseAsRoot(["run", "--edge-url", "ws://127.0.0.1:1/signaling", "--token", "a.b.c", "--signaling-timeout", "2"]) as? RunCommand)
        let outcome = await command.execute(progress: { _ in }, output: { _ in })
        let error = try #require(outcome.error)
        #expect([PreflightError.Code.signalingConnectionError, .signalingTimeout].contains(error.code))
        #expect(CommandFailure(error).description.hasPrefix("error 530"))
    }

    @Test func adaptiveDurationParses() throws {
        let adaptive = try #require(try PreflightCommand.parseAsRoot(["run", "--duration", "adaptive"]) as? RunCommand)
        #expect(try adaptive.testDuration() == .adaptive(maximum: .seconds(30)))
        let bounded = try #require(try PreflightCommand.parseAsRoot(["run", "--duration", "adaptive:12"]) as? RunCommand)
        #expect(try bounded.testDuration() == .adaptive(maximum: .seconds(12)))
        let fixed = try #require(try PreflightCommand.parseAsRoot(["run", "--duration", "7"]) as? RunCommand)
        #expect(try fixed.testDuration() == .seconds(7))
    }

    /// The summary says an adaptive test's end: settled (and how far it went on), or, in plain
    /// words, what an unsettled one sits between.
    @Test func theSummarySaysHowAnAdaptiveTestEnded() throws {
        let command = try #require(
            try PreflightCommand.parseAsRoot(["run", "--duration", "adaptive:20", "--continue-after-settling"]) as? RunCommand)
        #expect(command.continueAfterSettling)
        var report = PreflightReport()
        report.verdictSettlement = VerdictSettlement(
            settled: true, afterSeconds: 3, maximumSeconds: 20, meanMOSLower: 4.3, meanMOSUpper: 4.4, roundTrips: 140, roundTripsLost: 0,
            warningsRaised: [], warningsRuledOut: QualityWarning.allCases, warningsUndecided: [], reason: "callQuality excellent",
            callQuality: .excellent, continuedToSeconds: 20)
        #expect(ReportText.summary(report).contains("  Adaptive     verdict settled after 3 s of 20 (went on to 20 s): callQuality excellent"))
        report.verdictSettlement?.settled = false
        report.verdictSettlement?.unsettled = UnsettledVerdict(
            bands: [.excellent, .great], warnings: [], summary: "mean MOS 4.21 ± 0.03: between excellent and great")
        #expect(ReportText.summary(report).contains(
            "  Adaptive     not settled within the 20 s maximum: mean MOS 4.21 ± 0.03: between excellent and great"))
    }

    @Test func recordPlaybackAgainstTheLocalEdgeIsChosenByApplication() throws {
        let command = try #require(try PreflightCommand.parseAsRoot(["--application", "record-playback"]) as? RunCommand)
        #expect(command.application == .recordPlayback)
        #expect(command.connection.edgeURL == nil)
    }
}

@Suite struct ServeCommandTests {
    @Test func configurationFromOptionsAndEnvironment() throws {
        let command = try #require(try PreflightCommand.parseAsRoot(["serve", "--port", "0", "--application", "AP1=record-playback"]) as? ServeCommand)
        let configuration = try command.edgeConfiguration(environment: [
            "PREFLIGHT_API_KEY": "SK1", "PREFLIGHT_API_SECRET": String(repeating: "s", count: 32), "PREFLIGHT_MAX_SESSIONS": "7",
            "PREFLIGHT_ACCOUNT": "AC1",
        ])
        #expect(configuration.httpPort == 0)
        #expect(configuration.applications == ["AP1": .recordPlayback])
        #expect(configuration.maximumSessions == 7)
        #expect(configuration.apiKeys == ["SK1": String(repeating: "s", count: 32)])
        #expect(configuration.advertisedMediaPort == nil)
        // The key is bound to its account, and so are the applications.
        #expect(configuration.accounts == ["SK1": "AC1"])
        #expect(configuration.applicationAccounts == ["AP1": "AC1"])
        #expect(configuration.maximumSessionsPerIdentity == 5)
    }

    /// The Insights call log's caps: defaults, an option, a variable.
    @Test func loggedCallsFromOptionOrEnvironment() throws {
        let plain = try #require(try PreflightCommand.parseAsRoot(["serve"]) as? ServeCommand)
        let defaults = try plain.edgeConfiguration(environment: Self.credentials).callLimits
        #expect(defaults == CallLimits())
        #expect(defaults.maximumLoggedCalls == 20_000 && defaults.maximumLoggedCallsPerAccount == 10_000)
        let given = try #require(try PreflightCommand.parseAsRoot(["serve", "--max-logged-calls", "300"]) as? ServeCommand)
        let limits = try given.edgeConfiguration(
            environment: Self.credentials.merging(["PREFLIGHT_MAX_LOGGED_CALLS_PER_ACCOUNT": "200"]) { $1 }).callLimits
        #expect(limits.maximumLoggedCalls == 300 && limits.maximumLoggedCallsPerAccount == 200)
        let rate = try #require(try PreflightCommand.parseAsRoot(["serve", "--invite-rate", "0.5"]) as? ServeCommand)
        #expect(try rate.edgeConfiguration(environment: Self.credentials).callLimits.callerInviteRate == 0.5)
        #expect(try plain.edgeConfiguration(environment: Self.credentials.merging(["PREFLIGHT_INVITE_RATE": "3"]) { $1 }).callLimits.callerInviteRate == 3)
    }

    @Test func anAccountIsRequired() throws {
        let command = try #require(try PreflightCommand.parseAsRoot(["serve"]) as? ServeCommand)
        let error = #expect(throws: ValidationError.self) {
            try command.edgeConfiguration(environment: ["PREFLIGHT_API_KEY": "SK1", "PREFLIGHT_API_SECRET": String(repeating: "s", count: 32)])
        }
        #expect(error?.message == "the API key's account sid is needed: --account or PREFLIGHT_ACCOUNT")
    }

    @Test func advertisedPortFromOptionOrEnvironment() throws {
        let environment = ["PREFLIGHT_API_KEY": "SK1", "PREFLIGHT_API_SECRET": String(repeating: "s", count: 32), "PREFLIGHT_ACCOUNT": "AC1"]
        let flag = try #require(try PreflightCommand.parseAsRoot(["serve", "--advertise-port", "40000"]) as? ServeCommand)
        #expect(try flag.edgeConfiguration(environment: environment).advertisedMediaPort == 40000)
        let plain = try #require(try PreflightCommand.parseAsRoot(["serve"]) as? ServeCommand)
        var withPort = environment
        withPort["PREFLIGHT_ADVERTISE_PORT"] = "40001"
        #expect(try plain.edgeConfiguration(environment: withPort).advertisedMediaPort == 40001)
    }

    /// A key, secret and account, so that what a vector refuses is its own setting.
    static let credentials = ["PREFLIGHT_API_KEY": "SK1", "PREFLIGHT_API_SECRET": String(repeating: "s", count: 32), "PREFLIGHT_ACCOUNT": "AC1"]

    /// Rules on what may come from the environment too, checked when the configuration is made;
    /// `nil` for an `--ice-server:` URL error (its text is the URL parser's).
    @Test(arguments: [
        (["serve"], [:], "an API key sid is needed: --api-key or PREFLIGHT_API_KEY"),
        (["serve", "--api-key", "SK1"], [:], "an API key secret is needed: --api-secret-file or PREFLIGHT_API_SECRET"),
        (["serve"], credentials.merging(["PREFLIGHT_PORT": "eighty"]) { $1 }, "PREFLIGHT_PORT must be a whole number, got \"eighty\""),
        (
            ["serve"], credentials.merging(["PREFLIGHT_ADVERTISE_PORT": "70000"]) { $1 },
            "--advertise-port (PREFLIGHT_ADVERTISE_PORT) must be 1 to 65535, got 70000"
        ),
        (["serve"], credentials.merging(["PREFLIGHT_MAX_SESSIONS": "0"]) { $1 }, "--max-sessions (PREFLIGHT_MAX_SESSIONS) must be positive, got 0"),
        (
            ["serve"], credentials.merging(["PREFLIGHT_IPV6_PREFIX_LENGTH": "16"]) { $1 },
            "--ipv6-prefix-length (PREFLIGHT_IPV6_PREFIX_LENGTH) must be 32 to 128, got 16"
        ),
        (
            ["serve"], credentials.merging(["PREFLIGHT_APPLICATIONS": "AP1=jukebox"]) { $1 },
            "--application must be SID=echo, SID=record-playback, SID=dial or SID=dial:answer-on-bridge, got \"AP1=jukebox\""
        ),
        (["serve"], credentials.merging(["PREFLIGHT_ICE_SERVERS": "http://127.0.0.1"]) { $1 }, nil),
        (
            ["serve", "--ice-server", "turn:127.0.0.1:3478"], credentials,
            "a TURN --ice-server needs credentials: --turn-secret-file (or PREFLIGHT_TURN_SECRET), or --turn-username and --turn-credential"
        ),
    ] as [([String], [String: String], String?)])
    func refusesBadConfigurationFromTheEnvironment(arguments: [String], environment: [String: String], message: String?) throws {
        let command = try #require(try PreflightCommand.parseAsRoot(arguments) as? ServeCommand)
        let error = #expect(throws: ValidationError.self) { try command.edgeConfiguration(environment: environment) }
        if let message {
            #expect(error?.message == message)
        } else {
            #expect(error?.message.hasPrefix("--ice-server: ") == true)
        }
    }

    @Test func theOldVariableNameOfTheRoutesIsStillRead() throws {
        let command = try #require(try PreflightCommand.parseAsRoot(["serve"]) as? ServeCommand)
        let configuration = try command.edgeConfiguration(environment: Self.credentials.merging(["PREFLIGHT_APPS": "AP9=echo"]) { $1 })
        #expect(configuration.applications == ["AP9": .echo])
        let defaults = try command.edgeConfiguration(environment: Self.credentials)
        #expect(defaults.applications[LocalEdge.applicationSID(.recordPlayback)] == .recordPlayback)
    }

    @Test func fixedTURNCredentialsAreHandedOutAsGiven() throws {
        let command = try #require(
            try PreflightCommand.parseAsRoot([
                "serve", "--ice-server", "turn:127.0.0.1:3478", "--turn-username", "lab", "--turn-credential", "pass",
            ]) as? ServeCommand)
        let configuration = try command.edgeConfiguration(environment: Self.credentials)
        #expect(configuration.iceServers == [ICEServer(urls: ["turn:127.0.0.1:3478"], username: "lab", credential: "pass")])
        #expect(configuration.turnSecret == nil)
    }
}

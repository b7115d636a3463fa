import ArgumentParser
import Foundation
import PreflightCLI
import PreflightCore
import PreflightEdge
import Testing

/// Secrets from files and the environment for `serve` and `token`, and which rule refuses what.
@Suite struct SecretOptionTests {
    static let secret = "lab-secret-0123456789abcdefghijklmnop"

    /// A temporary file with `text`.
    static func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("preflight-secret-\(UUID().uuidString)").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func serve(_ arguments: [String]) throws -> ServeCommand {
        try #require(try PreflightCommand.parseAsRoot(["serve", "--account", "AC1"] + arguments) as? ServeCommand)
    }

    /// The message of the ``CommandFailure`` that `body` throws, after checking its code (70005
    /// unless another is expected).
    static func failureMessage(code: PreflightError.Code = .invalidArgument, _ body: () throws -> Void) -> String? {
        do {
            try body()
        } catch let failure as CommandFailure {
            #expect(failure.error.code == code)
            #expect(failure.description.hasPrefix("error \(code.rawValue): "))
            return failure.error.message
        } catch {
            Issue.record("not a coded failure: \(error)")
        }
        return nil
    }

    @Test func serveReadsTheSecretFileWithoutItsTrailingNewline() throws {
        for ending in ["\n", "\r\n", "", "\n\n"] {
            let path = try Self.file(Self.secret + ending)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let configuration = try Self.serve(["--api-key", "SK1", "--api-secret-file", path]).edgeConfiguration(environment: [:])
            #expect(configuration.apiKeys == ["SK1": Self.secret], "ending \(Array(ending.utf8))")
        }
    }

    @Test func serveTakesTheSecretsFromTheEnvironment() throws {
        let configuration = try Self.serve(["--ice-server", "turn:127.0.0.1:3478?transport=udp"]).edgeConfiguration(environment: [
            "PREFLIGHT_API_KEY": "SK1", "PREFLIGHT_API_SECRET": Self.secret, "PREFLIGHT_TURN_SECRET": "turn-secret",
        ])
        #expect(configuration.apiKeys == ["SK1": Self.secret])
        #expect(configuration.turnSecret == "turn-secret")
    }

    @Test func serveReadsTheTURNSecretFile() throws {
        let path = try Self.file("turn-secret\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let configuration = try Self.serve([
            "--api-key", "SK1", "--api-secret", Self.secret, "--ice-server", "turn:127.0.0.1:3478", "--turn-secret-file", path,
        ]).edgeConfiguration(environment: [:])
        #expect(configuration.turnSecret == "turn-secret")
        // The option still works, for compatibility.
        #expect(configuration.apiKeys == ["SK1": Self.secret])
    }

    @Test func anUnreadableSecretFileIsRefused() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("preflight-no-such-\(UUID().uuidString)").path
        let serve = try Self.serve(["--api-key", "SK1", "--api-secret-file", missing])
        // A file that cannot be read is a local failure: 70203, as for the TLS files.
        let message = Self.failureMessage(code: .fileUnreadable) { _ = try serve.edgeConfiguration(environment: [:]) }
        #expect(message == "--api-secret-file \(missing): cannot read the API key secret file")
        let turn = try Self.serve(["--api-key", "SK1", "--api-secret", Self.secret, "--turn-secret-file", missing])
        #expect(Self.failureMessage(code: .fileUnreadable) { _ = try turn.edgeConfiguration(environment: [:]) }
            == "--turn-secret-file \(missing): cannot read the TURN secret file")
    }

    @Test func anEmptySecretIsRefusedWhereverItComesFrom() throws {
        let blank = try Self.file("\n")
        defer { try? FileManager.default.removeItem(atPath: blank) }
        let fromFile = try Self.serve(["--api-key", "SK1", "--api-secret-file", blank])
        #expect(Self.failureMessage { _ = try fromFile.edgeConfiguration(environment: [:]) }
            == "the API key secret from --api-secret-file \(blank) is empty")
        let fromEnvironment = try Self.serve(["--api-key", "SK1"])
        #expect(Self.failureMessage { _ = try fromEnvironment.edgeConfiguration(environment: ["PREFLIGHT_API_SECRET": ""]) }
            == "the API key secret from PREFLIGHT_API_SECRET is empty")
        let fromOption = try Self.serve(["--api-key", "SK1", "--api-secret", ""])
        #expect(Self.failureMessage { _ = try fromOption.edgeConfiguration(environment: [:]) }
            == "the API key secret from --api-secret is empty")
        let turn = try Self.serve(["--api-key", "SK1", "--api-secret", Self.secret])
        #expect(Self.failureMessage { _ = try turn.edgeConfiguration(environment: ["PREFLIGHT_TURN_SECRET": ""]) }
            == "the TURN secret from PREFLIGHT_TURN_SECRET is empty")
    }

    @Test(arguments: [["serve"], ["token", "--identity", "a"]])
    func aSecretGivenTwiceIsRefusedWhenParsing(command: [String]) throws {
        let path = try Self.file(Self.secret)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = #expect(throws: (any Error).self) {
            try PreflightCommand.parseAsRoot(command + ["--api-secret", Self.secret, "--api-secret-file", path])
        }
        #expect(error.map { PreflightCommand.message(for: $0) } == "give the API key secret once: --api-secret or --api-secret-file, not both")
    }

    @Test func aMissingSecretNamesTheFileOption() throws {
        let serve = try Self.serve(["--api-key", "SK1"])
        do {
            _ = try serve.edgeConfiguration(environment: [:])
            Issue.record("no secret was accepted")
        } catch let error as ValidationError {
            #expect(error.message.contains("--api-secret-file"))
        }
    }

    @Test func halfATLSPairIsRefused() throws {
        let serve = try Self.serve(["--api-key", "SK1", "--api-secret", Self.secret, "--tls-cert", "/tmp/cert.pem"])
        #expect(Self.failureMessage { _ = try serve.edgeConfiguration(environment: [:]) }
            == "--tls-cert and --tls-key go together (or PREFLIGHT_TLS_CERT and PREFLIGHT_TLS_KEY)")
        let both = try Self.serve(["--api-key", "SK1", "--api-secret", Self.secret])
            .edgeConfiguration(environment: ["PREFLIGHT_TLS_CERT": "/c.pem", "PREFLIGHT_TLS_KEY": "/k.pem"])
        #expect(both.tls == EdgeTLSConfiguration(certificateChainFile: "/c.pem", privateKeyFile: "/k.pem"))
    }

    @Test func serveSetsTheHTTPLimits() throws {
        let configuration = try Self.serve([
            "--api-key", "SK1", "--api-secret", Self.secret, "--max-connections", "100", "--header-timeout", "5",
        ]).edgeConfiguration(environment: ["PREFLIGHT_MAX_CONNECTIONS_PER_ADDRESS": "8", "PREFLIGHT_IDLE_TIMEOUT": "30"])
        #expect(configuration.httpLimits == EdgeHTTPLimits(
            headerTimeout: .seconds(5), idleTimeout: .seconds(30), maximumConnections: 100, maximumConnectionsPerAddress: 8))
        let defaults = try Self.serve(["--api-key", "SK1", "--api-secret", Self.secret]).edgeConfiguration(environment: [:])
        #expect(defaults.httpLimits == EdgeHTTPLimits())
        #expect(defaults.httpLimits.webSocketPingInterval == .seconds(30))
        let pings = try Self.serve(["--api-key", "SK1", "--api-secret", Self.secret, "--ping-interval", "5"])
        #expect(try pings.edgeConfiguration(environment: [:]).httpLimits.webSocketPingInterval == .seconds(5))
        let none = try Self.serve(["--api-key", "SK1", "--api-secret", Self.secret]).edgeConfiguration(environment: ["PREFLIGHT_PING_INTERVAL": "0"])
        #expect(none.httpLimits.webSocketPingInterval == nil)
        #expect(defaults.tls == nil)
        #expect(defaults.httpLimits.ipv6PrefixLength == 64)
        let site = try Self.serve(["--api-key", "SK1", "--api-secret", Self.secret, "--ipv6-prefix-length", "48"])
        #expect(try site.edgeConfiguration(environment: ["PREFLIGHT_IPV6_PREFIX_LENGTH": "56"]).httpLimits.ipv6PrefixLength == 48)
        let fromEnvironment = try Self.serve(["--api-key", "SK1", "--api-secret", Self.secret])
            .edgeConfiguration(environment: ["PREFLIGHT_IPV6_PREFIX_LENGTH": "128"])
        #expect(fromEnvironment.httpLimits.ipv6PrefixLength == 128)
    }

    @Test func tokenReadsTheSecretFromAFileOrTheEnvironment() async throws {
        let path = try Self.file(Self.secret + "\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let verifier = try await AccessTokenVerifier(configuration: .init(apiKeys: ["SK1": Self.secret]))
        let fromFile = try #require(
            try PreflightCommand.parseAsRoot(["token", "--identity", "a", "--api-key", "SK1", "--api-secret-file", path, "--account", "AC1", "--application", "AP1"])
                as? TokenCommand)
        #expect(try await verifier.verify(try await fromFile.mint(environment: [:])).grants.identity == "a")
        let fromEnvironment = try #require(
            try PreflightCommand.parseAsRoot(["token", "--identity", "b", "--api-key", "SK1", "--account", "AC1", "--application", "AP1"]) as? TokenCommand)
        #expect(try await verifier.verify(try await fromEnvironment.mint(environment: ["PREFLIGHT_API_SECRET": Self.secret])).grants.identity == "b")
        do {
            _ = try await fromEnvironment.mint(environment: ["PREFLIGHT_API_SECRET": ""])
            Issue.record("an empty secret was accepted")
        } catch let failure as CommandFailure {
            #expect(failure.error.message == "the API key secret from PREFLIGHT_API_SECRET is empty")
        }
    }

    @Test func runTakesTheEdgeCAFile() throws {
        let run = try #require(
            try PreflightCommand.parseAsRoot(["run", "--edge-url", "wss://edge.example:8443/signaling", "--token", "a.b.c", "--edge-ca-file", "/ca.pem"])
                as? RunCommand)
        #expect(run.connection.edgeCAFile == "/ca.pem")
    }
}

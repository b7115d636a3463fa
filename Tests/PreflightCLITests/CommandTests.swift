import ArgumentParser
import PreflightCLI
import PreflightCore
import PreflightEdge
import Testing

@Suite struct CommandTests {
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

    @Test(arguments: [["token"], ["token", "--identity", "a", "--ttl", "0"], ["token", "--identity", "a", "--ttl", "90000"]])
    func refusesBadArguments(arguments: [String]) {
        #expect(throws: (any Error).self) { try PreflightCommand.parseAsRoot(arguments) }
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

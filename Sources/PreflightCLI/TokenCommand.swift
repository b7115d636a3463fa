import ArgumentParser
import Foundation
import PreflightCore
import PreflightEdge

/// `preflight token`: mints an access token for an identity, an API key and a voice application.
public struct TokenCommand: AsyncParsableCommand {
    /// The subcommand's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Mint an access token (JWT HS256) for an identity, API key and application.",
        discussion: """
            The key, secret and account may also come from the environment: PREFLIGHT_API_KEY, \
            PREFLIGHT_API_SECRET (at least 32 bytes) and PREFLIGHT_ACCOUNT. Give the secret in a file \
            (--api-secret-file) or the environment: --api-secret is visible to other users in `ps`. \
            The token is printed on standard output.
            """
    )

    /// The user's identity.
    @Option(help: "The identity the token is for.")
    public var identity: String

    /// The API key sid.
    @Option(name: .customLong("api-key"), help: "The API key sid (issuer). Default: $PREFLIGHT_API_KEY.")
    public var apiKey: String?

    /// The API key secret (visible in `ps`; prefer ``apiSecretFile`` or the environment).
    @Option(
        name: .customLong("api-secret"),
        help: "The API key secret. Visible to other users in `ps`: prefer --api-secret-file or $PREFLIGHT_API_SECRET.")
    public var apiSecret: String?

    /// A file holding the API key secret.
    @Option(name: .customLong("api-secret-file"), help: "A file holding the API key secret (a trailing newline is ignored).")
    public var apiSecretFile: String?

    /// The account sid.
    @Option(help: "The account sid (subject). Default: $PREFLIGHT_ACCOUNT.")
    public var account: String?

    /// The voice application outgoing calls reach.
    @Option(help: "The application sid outgoing calls are routed to (the edge's test app).")
    public var application: String?

    /// Whether incoming calls are allowed.
    @Flag(help: "Allow incoming calls to the identity.")
    public var incoming = false

    /// Lifetime in seconds.
    @Option(help: "Lifetime in seconds (at most 86400).")
    public var ttl: Int = 3600

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// Checks the arguments before running.
    public func validate() throws {
        guard (1...86_400).contains(ttl) else {
            throw ValidationError("--ttl must be between 1 and 86400 seconds, got \(ttl)")
        }
    }

    /// Mints and prints the token.
    public func run() async throws {
        print(try await mint())
    }

    /// Mints the token the command prints.
    /// - Parameter environment: where `PREFLIGHT_…` values are read; the process's by default.
    /// - Throws: `ValidationError` for missing key, secret or account; ``CommandFailure`` with the
    ///   ``PreflightError`` (70005) for a secret given twice, a secret file that cannot be read, an
    ///   empty secret, or a key that cannot sign (a secret shorter than 32 bytes).
    public func mint(environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> String {
        guard let key = apiKey ?? environment["PREFLIGHT_API_KEY"] else {
            throw ValidationError("an API key sid is needed: --api-key or PREFLIGHT_API_KEY")
        }
        guard let secret = try ServeCommand.apiSecretOption.resolve(value: apiSecret, file: apiSecretFile, environment: environment) else {
            throw ValidationError("an API key secret is needed: --api-secret-file or PREFLIGHT_API_SECRET")
        }
        guard let account = account ?? environment["PREFLIGHT_ACCOUNT"] else {
            throw ValidationError("an account sid is needed: --account or PREFLIGHT_ACCOUNT")
        }
        do {
            let issuer = try await AccessTokenIssuer(apiKeySID: key, apiKeySecret: secret, accountSID: account)
            return try await issuer.mint(
                identity: identity, outgoingApplicationSID: application, incomingAllow: incoming,
                lifetime: .seconds(ttl))
        } catch {
            throw CommandFailure(error)
        }
    }
}

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
            The account, key and secret may also come from the environment: PREFLIGHT_ACCOUNT, \
            PREFLIGHT_API_KEY and PREFLIGHT_API_SECRET (at least 32 bytes). Give the secret in a file \
            (--api-secret-file) or the environment: --api-secret is visible to other users in `ps`. \
            The token is printed on standard output.
            """
    )

    /// The user's identity.
    @Option(help: "The identity the token is for.")
    public var identity: String

    /// The account, API key and secret that sign the token.
    @OptionGroup(title: "Credentials")
    public var credentials: CredentialOptions

    /// The voice application outgoing calls reach: a sid, or a test application's name for the
    /// local edge's sid (``LocalEdge/applicationSID(_:)``).
    @Option(
        help: """
            The application sid outgoing calls are routed to, or echo / record-playback for the \
            sids `serve` routes by default.
            """)
    public var application: String?

    /// Whether incoming calls are allowed.
    @Flag(help: "Allow incoming calls to the identity.")
    public var incoming = false

    /// Lifetime in seconds.
    @Option(help: "Lifetime in seconds (at most 86400).")
    public var ttl: Int = 3600

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// Checks the arguments before running; each `ValidationError` names its rule.
    public func validate() throws {
        guard !identity.isEmpty else { throw ValidationError("--identity must not be empty") }
        guard (1...86_400).contains(ttl) else {
            throw ValidationError("--ttl must be between 1 and 86400 seconds, got \(ttl)")
        }
        if let application, application.isEmpty { throw ValidationError("--application must not be empty") }
    }

    /// The application sid the token grants: ``application`` as given, or the local edge's sid
    /// for a test application's name.
    var applicationSID: String? {
        guard let application else { return nil }
        return TestApplication(rawValue: application).map(LocalEdge.applicationSID) ?? application
    }

    /// Mints and prints the token.
    public func run() async throws {
        print(try await mint())
    }

    /// Mints the token the command prints.
    /// - Parameter environment: where `PREFLIGHT_…` values are read; the process's by default.
    /// - Throws: `ValidationError` for a missing key, secret or account; ``CommandFailure`` with the
    ///   ``PreflightError`` (70005) for a secret file that cannot be read, an empty secret, or a
    ///   key that cannot sign (a secret shorter than 32 bytes).
    public func mint(environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> String {
        let resolved = try credentials.resolve(environment: environment)
        do {
            let issuer = try await AccessTokenIssuer(
                apiKeySID: resolved.apiKey, apiKeySecret: resolved.apiSecret, accountSID: resolved.account)
            return try await issuer.mint(
                identity: identity, outgoingApplicationSID: applicationSID, incomingAllow: incoming,
                lifetime: .seconds(ttl))
        } catch {
            throw CommandFailure(error)
        }
    }
}

import ArgumentParser
import Foundation
import PreflightCore

/// Who signs access tokens: the account, its API key sid and the key's secret. `preflight serve`
/// trusts them, `preflight token` signs with them; both take them from these options or the
/// environment (`PREFLIGHT_ACCOUNT`, `PREFLIGHT_API_KEY`, `PREFLIGHT_API_SECRET`). The secret
/// belongs in a file or the environment: on the command line `ps` shows it to every user
/// (docs/security.md, "Secrets off the command line").
public struct CredentialOptions: ParsableArguments, Sendable {
    /// The account sid the API key belongs to: tokens name it as their subject.
    @Option(name: .customLong("account"), help: "The account sid the API key belongs to, tokens' subject (default: PREFLIGHT_ACCOUNT).")
    public var account: String?

    /// The API key sid: tokens name it as their issuer.
    @Option(name: .customLong("api-key"), help: "The API key sid, tokens' issuer (default: PREFLIGHT_API_KEY).")
    public var apiKey: String?

    /// The API key secret itself (visible in `ps`; prefer ``apiSecretFile`` or the environment).
    @Option(
        name: .customLong("api-secret"),
        help: "The API key secret (at least 32 bytes). Visible to other users in `ps`: prefer --api-secret-file or PREFLIGHT_API_SECRET.")
    public var apiSecret: String?

    /// A file holding the API key secret.
    @Option(name: .customLong("api-secret-file"), help: "A file holding the API key secret (a trailing newline is ignored).")
    public var apiSecretFile: String?

    /// Creates the options (ArgumentParser requirement).
    public init() {}

    /// Where the API key secret comes from.
    static let apiSecretSource = SecretOption(
        name: "API key secret", valueFlag: "--api-secret", fileFlag: "--api-secret-file", variable: "PREFLIGHT_API_SECRET")

    /// The rule of these options alone: the secret is given once (`--api-secret` or `--api-secret-file`).
    public func validate() throws {
        try Self.apiSecretSource.refuseBoth(value: apiSecret, file: apiSecretFile)
    }

    /// The account, key and secret, each from its option or the environment.
    struct Resolved: Sendable {
        /// The account sid.
        var account: String
        /// The API key sid.
        var apiKey: String
        /// The API key secret.
        var apiSecret: String
    }

    /// The account, key and secret from the options, else from `environment`.
    /// - Throws: `ValidationError` naming the option and the variable of whichever is missing or
    ///   empty; ``CommandFailure`` (70005) for a secret file that cannot be read or an empty secret.
    func resolve(environment: [String: String]) throws -> Resolved {
        guard let apiKey = apiKey ?? environment["PREFLIGHT_API_KEY"], !apiKey.isEmpty else {
            throw ValidationError("an API key sid is needed: --api-key or PREFLIGHT_API_KEY")
        }
        guard let secret = try Self.apiSecretSource.resolve(value: apiSecret, file: apiSecretFile, environment: environment) else {
            throw ValidationError("an API key secret is needed: --api-secret-file or PREFLIGHT_API_SECRET")
        }
        guard let account = account ?? environment["PREFLIGHT_ACCOUNT"], !account.isEmpty else {
            throw ValidationError("the API key's account sid is needed: --account or PREFLIGHT_ACCOUNT")
        }
        return Resolved(account: account, apiKey: apiKey, apiSecret: secret)
    }
}

import ArgumentParser
import Foundation
import PreflightCore

/// STUN/TURN servers and the credentials of their TURN entries, shared by `preflight run` (servers
/// the client gathers from besides the edge's) and `preflight serve` (servers the edge hands out in
/// `welcome`, docs/protocol.md). TURN credentials are either fixed (`--turn-username` and
/// `--turn-credential`) or made per use from the secret shared with the TURN servers, the "TURN
/// REST API" scheme of coturn's `use-auth-secret` (``TURNRESTCredentials``).
public struct ICEServerOptions: ParsableArguments, Sendable {
    /// `stun:`, `turn:` and `turns:` URLs.
    @Option(
        name: .customLong("ice-server"),
        help: """
            A stun:, turn: or turns: URL, e.g. turn:198.18.3.2:3478?transport=udp (repeatable). \
            `run` gathers from it besides the edge's servers; `serve` hands it out in welcome \
            (also PREFLIGHT_ICE_SERVERS, comma-separated).
            """)
    public var iceServers: [String] = []

    /// A fixed TURN username for the TURN URLs.
    @Option(name: .customLong("turn-username"), help: "A fixed username for the TURN --ice-server URLs (with --turn-credential).")
    public var turnUsername: String?

    /// The fixed TURN password for ``turnUsername``.
    @Option(name: .customLong("turn-credential"), help: "The password of --turn-username.")
    public var turnCredential: String?

    /// The TURN REST secret itself (visible in `ps`; prefer ``turnSecretFile`` or the environment).
    @Option(
        name: .customLong("turn-secret"),
        help: """
            The secret shared with the TURN servers (coturn static-auth-secret), from which \
            time-limited credentials are made. Visible in `ps`: prefer --turn-secret-file or PREFLIGHT_TURN_SECRET.
            """)
    public var turnSecret: String?

    /// A file holding the TURN REST secret.
    @Option(name: .customLong("turn-secret-file"), help: "A file holding the TURN secret (a trailing newline is ignored).")
    public var turnSecretFile: String?

    /// Creates the options (ArgumentParser requirement).
    public init() {}

    /// Where the TURN secret comes from.
    static let turnSecretSource = SecretOption(
        name: "TURN secret", valueFlag: "--turn-secret", fileFlag: "--turn-secret-file", variable: "PREFLIGHT_TURN_SECRET")

    /// The rules of these options alone: every URL parses; a fixed username comes with its
    /// password; the secret is given once; fixed credentials and a secret exclude each other.
    public func validate() throws {
        for url in iceServers { try Self.checkURL(url) }
        if (turnUsername == nil) != (turnCredential == nil) {
            throw ValidationError("--turn-username and --turn-credential go together")
        }
        try Self.turnSecretSource.refuseBoth(value: turnSecret, file: turnSecretFile)
        if turnUsername != nil, turnSecret != nil || turnSecretFile != nil {
            throw ValidationError(
                "TURN credentials are fixed (--turn-username, --turn-credential) or made from a TURN secret (--turn-secret-file), not both")
        }
    }

    /// The rule for one URL: it parses as a STUN or TURN URL (RFC 7064, RFC 7065).
    static func checkURL(_ url: String) throws(ValidationError) {
        do { _ = try ICEServerURL(url) } catch { throw ValidationError("--ice-server: \(error.message)") }
    }

    /// Whether any option gives TURN credentials (fixed ones, or a secret to make them).
    var givesTURNCredentials: Bool { turnUsername != nil || turnSecret != nil || turnSecretFile != nil }

    /// Whether `urls` name a TURN server (`turn:` or `turns:`).
    static func containsTURN(_ urls: [String]) -> Bool {
        urls.contains { url in (try? ICEServerURL(url))?.scheme.isTURN == true }
    }

    /// The TURN secret from ``turnSecretFile``, ``turnSecret`` or `PREFLIGHT_TURN_SECRET`.
    /// - Throws: ``CommandFailure`` (70005) for a file that cannot be read or an empty secret.
    func resolvedTURNSecret(environment: [String: String]) throws -> String? {
        try Self.turnSecretSource.resolve(value: turnSecret, file: turnSecretFile, environment: environment)
    }
}

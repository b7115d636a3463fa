import ArgumentParser

/// How a command reaches an edge: the same four options, names, ranges and rules in every
/// command that talks to one (`run`, `probe`, `check`, `call`, `listen`, `diagnose`, `echo-test`).
///
/// - `--edge-url` names the edge; `--edge` is its old spelling in every command (hidden, kept so
///   that scripts keep working; both together are refused).
/// - `--token` is the access token for it (`preflight token` mints one; which grants a command
///   needs is in its own help).
/// - `--edge-ca-file` adds CA certificates to trust for a `wss://` or `https://` edge, so it
///   needs `--edge-url`: the local edge is `ws://` on loopback.
/// - `--signaling-timeout` bounds connecting and each signaling exchange, 1–120 s (10 by default).
///
/// Without `--edge-url` a command starts an edge in its own process. Whether `--edge-url` and
/// `--token` must come together is the command's rule (``requireTogether()`` for most;
/// `run --roaming` takes a token and no URL; `listen` needs both).
public struct EdgeConnectionOptions: ParsableArguments, Sendable {
    /// The edge's signaling URL (or, for `check`, its HTTP base URL).
    @Option(
        name: .customLong("edge-url"),
        help: "The edge's signaling URL (wss://host:port/signaling, or ws:// on loopback), with --token. Default: an edge started in this process.")
    public var edgeURL: String?

    /// The access token for ``edgeURL``.
    @Option(help: "The access token for --edge-url (see `preflight token`).")
    public var token: String?

    /// Extra trusted certificates for a TLS edge.
    @Option(
        name: .customLong("edge-ca-file"),
        help: "A PEM file of CA certificates to trust for a wss:// or https:// --edge-url besides the system's (a private or self-signed edge certificate).")
    public var edgeCAFile: String?

    /// Seconds allowed to connect and for each signaling exchange.
    @Option(name: .customLong("signaling-timeout"), help: "Seconds allowed to connect to the edge and for each signaling exchange (1-120).")
    public var signalingTimeout: Int = 10

    /// `--edge`, the old spelling of `--edge-url` (hidden; ``validate()`` moves it to ``edgeURL``).
    @Option(name: .customLong("edge"), help: .hidden)
    var edgeOldSpelling: String?

    /// Creates the options (ArgumentParser requirement).
    public init() {}

    /// The rules every command shares; ArgumentParser calls it before the command's own.
    public mutating func validate() throws {
        edgeURL = try OldSpelling.merge(edgeOldSpelling, into: edgeURL, oldName: "--edge", newName: "--edge-url")
        edgeOldSpelling = nil
        guard (1...120).contains(signalingTimeout) else {
            throw ValidationError("--signaling-timeout must be 1 to 120 seconds, got \(signalingTimeout)")
        }
        if edgeURL?.isEmpty == true { throw ValidationError("--edge-url must not be empty") }
        if token?.isEmpty == true { throw ValidationError("--token must not be empty") }
        if edgeURL == nil, edgeCAFile != nil {
            throw ValidationError("--edge-ca-file is for a wss:// or https:// --edge-url; the local edge is ws:// on loopback")
        }
    }

    /// Refuses `--edge-url` without `--token` and the other way round.
    public func requireTogether() throws(ValidationError) {
        if (edgeURL == nil) != (token == nil) { throw ValidationError("--edge-url and --token go together") }
    }

    /// The edge and token given, or `nil` for an edge started in this process.
    public var remote: (edgeURL: String, token: String)? {
        guard let edgeURL, let token else { return nil }
        return (edgeURL, token)
    }

    /// ``signalingTimeout`` as a duration.
    public var timeout: Duration { .seconds(signalingTimeout) }
}

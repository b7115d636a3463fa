import ArgumentParser
import Foundation
import Logging
import PreflightCore
import PreflightEdge
import PreflightTesting
import UnixSignals

/// `preflight serve`: runs the edge server until SIGINT or SIGTERM.
public struct ServeCommand: AsyncParsableCommand {
    /// The subcommand's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the edge server: WebSocket signaling, access tokens, UDP media with the test applications.",
        discussion: """
            Every option can also come from the environment: PREFLIGHT_HOST, PREFLIGHT_PORT, \
            PREFLIGHT_MEDIA_PORT, PREFLIGHT_ADVERTISE, PREFLIGHT_ADVERTISE_PORT, PREFLIGHT_EDGE_NAME, PREFLIGHT_API_KEY, \
            PREFLIGHT_API_SECRET, PREFLIGHT_APPS ("AP…=echo,AP…=record-playback"), \
            PREFLIGHT_ACCOUNT, PREFLIGHT_MAX_SESSIONS, PREFLIGHT_MAX_SESSIONS_PER_ACCOUNT, PREFLIGHT_MAX_SESSIONS_PER_IDENTITY, \
            PREFLIGHT_SIGNALING_TIMEOUT, PREFLIGHT_MAX_DURATION, PREFLIGHT_PACKET_RATE, PREFLIGHT_TLS_CERT, \
            PREFLIGHT_TLS_KEY, PREFLIGHT_MAX_CONNECTIONS, PREFLIGHT_MAX_CONNECTIONS_PER_ADDRESS, \
            PREFLIGHT_HEADER_TIMEOUT, PREFLIGHT_IDLE_TIMEOUT. Secrets belong in a file (--api-secret-file, \
            --turn-secret-file) or the environment: a secret given as --api-secret or --turn-secret is \
            visible to every user of the machine in `ps`. Without --app the embedded edge's application \
            sids are served. With --tls-cert and --tls-key the edge serves https and wss only. Once \
            listening, the edge prints "signaling <url>" and "media <address>" on standard output; logs \
            go to standard error.
            """
    )

    /// The bind address.
    @Option(help: "Address to bind (default 127.0.0.1; 0.0.0.0 for every interface).")
    public var host: String?
    /// The HTTP/WebSocket port.
    @Option(help: "HTTP and WebSocket port (default 8080; 0 for an ephemeral port).")
    public var port: Int?
    /// The UDP media port.
    @Option(name: .customLong("media-port"), help: "UDP media port (default 0: ephemeral).")
    public var mediaPort: Int?
    /// The advertised candidate address.
    @Option(help: "Address advertised in the edge's ICE candidate (default: the bind address).")
    public var advertise: String?

    /// The advertised candidate port.
    @Option(name: .customLong("advertise-port"), help: "Media port advertised in the edge's ICE candidate (default: the bound media port).")
    public var advertisePort: Int?
    /// The edge's name.
    @Option(name: .customLong("edge-name"), help: "The edge location's name, the report's `edge` (default local).")
    public var edgeName: String?
    /// The API key sid.
    @Option(name: .customLong("api-key"), help: "API key sid tokens are issued by.")
    public var apiKey: String?
    /// The API key secret (visible in `ps`; prefer ``apiSecretFile`` or the environment).
    @Option(
        name: .customLong("api-secret"),
        help: "API key secret (at least 32 bytes). Visible to other users in `ps`: prefer --api-secret-file or PREFLIGHT_API_SECRET.")
    public var apiSecret: String?
    /// A file holding the API key secret.
    @Option(name: .customLong("api-secret-file"), help: "A file holding the API key secret (a trailing newline is ignored).")
    public var apiSecretFile: String?
    /// The TLS certificate chain.
    @Option(name: .customLong("tls-cert"), help: "PEM certificate chain (leaf first): serve https and wss (with --tls-key).")
    public var tlsCert: String?
    /// The TLS private key.
    @Option(name: .customLong("tls-key"), help: "PEM private key of --tls-cert.")
    public var tlsKey: String?
    /// The cap on HTTP connections.
    @Option(name: .customLong("max-connections"), help: "HTTP/WebSocket connections open at once (default 2048).")
    public var maxConnections: Int?
    /// The cap on HTTP connections per source address.
    @Option(name: .customLong("max-connections-per-address"), help: "HTTP/WebSocket connections open at once from one IP address (default 64).")
    public var maxConnectionsPerAddress: Int?
    /// The HTTP request head timeout.
    @Option(name: .customLong("header-timeout"), help: "Seconds a connection may take to send its request head (default 10).")
    public var headerTimeout: Int?
    /// The HTTP idle timeout.
    @Option(name: .customLong("idle-timeout"), help: "Seconds an HTTP connection may stay silent; not WebSockets (default 60).")
    public var idleTimeout: Int?
    /// The account the API key belongs to.
    @Option(name: .customLong("account"), help: "The account sid the API key belongs to: tokens must name it as their subject (PREFLIGHT_ACCOUNT).")
    public var account: String?
    /// Sessions one account holds at once.
    @Option(name: .customLong("max-sessions-per-account"), help: "Sessions one account holds at once (default 500).")
    public var maxSessionsPerAccount: Int?
    /// Sessions one identity holds at once.
    @Option(name: .customLong("max-sessions-per-identity"), help: "Sessions one identity holds at once (default 5).")
    public var maxSessionsPerIdentity: Int?
    /// Application routes.
    @Option(name: .customLong("app"), help: "An application route SID=echo|record-playback (repeatable).")
    public var apps: [String] = []
    /// Session limit.
    @Option(name: .customLong("max-sessions"), help: "Signaling sessions served at once (default 1000).")
    public var maxSessions: Int?
    /// The time to `hello`, and then to `invite`.
    @Option(name: .customLong("signaling-timeout"), help: "Seconds a connection may take to send hello, and then invite (default 10).")
    public var signalingTimeout: Int?
    /// Test duration limit.
    @Option(name: .customLong("max-duration"), help: "Longest test call in seconds (default 120).")
    public var maxDuration: Int?
    /// Per-source packet rate.
    @Option(name: .customLong("packet-rate"), help: "Datagrams per second accepted from one source (default 200).")
    public var packetRate: Double?
    /// STUN/TURN servers handed out in welcome.
    @Option(
        name: .customLong("ice-server"),
        help: "A STUN/TURN URL handed out in welcome, e.g. turn:198.18.3.2:3478?transport=udp (repeatable; PREFLIGHT_ICE_SERVERS, comma-separated).")
    public var iceServers: [String] = []
    /// The TURN REST API secret (visible in `ps`; prefer ``turnSecretFile`` or the environment).
    @Option(
        name: .customLong("turn-secret"),
        help: "The secret shared with the TURN servers (coturn static-auth-secret): welcome carries time-limited credentials made with it. Visible in `ps`: prefer --turn-secret-file or PREFLIGHT_TURN_SECRET.")
    public var turnSecret: String?
    /// A file holding the TURN REST API secret.
    @Option(name: .customLong("turn-secret-file"), help: "A file holding the TURN secret (a trailing newline is ignored).")
    public var turnSecretFile: String?
    /// Lifetime of the TURN credentials.
    @Option(name: .customLong("turn-credential-lifetime"), help: "Seconds the TURN credentials stay valid (default 3600).")
    public var turnCredentialLifetime: Int?
    /// Do not offer the edge's own STUN.
    @Flag(name: .customLong("no-edge-stun"), help: "Do not offer the edge's media port as a stun: server in welcome.")
    public var noEdgeSTUN = false
    /// Log level.
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (default info).")
    public var logLevel: String = "info"

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// Where the API key secret comes from.
    static let apiSecretOption = SecretOption(
        name: "API key secret", valueFlag: "--api-secret", fileFlag: "--api-secret-file", variable: "PREFLIGHT_API_SECRET")
    /// Where the TURN secret comes from.
    static let turnSecretOption = SecretOption(
        name: "TURN secret", valueFlag: "--turn-secret", fileFlag: "--turn-secret-file", variable: "PREFLIGHT_TURN_SECRET")

    /// The edge configuration from the options and the environment.
    /// - Throws: `ValidationError` for missing or malformed values; ``CommandFailure`` (70005)
    ///   for a secret given twice, a secret file that cannot be read, an empty secret, or half a
    ///   TLS certificate and key pair.
    public func edgeConfiguration(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> EdgeConfiguration {
        func number(_ option: Int?, _ name: String, default value: Int) throws -> Int {
            if let option { return option }
            guard let text = environment[name] else { return value }
            guard let parsed = Int(text) else { throw ValidationError("\(name) must be a whole number, got \"\(text)\"") }
            return parsed
        }
        guard let key = apiKey ?? environment["PREFLIGHT_API_KEY"] else {
            throw ValidationError("an API key sid is needed: --api-key or PREFLIGHT_API_KEY")
        }
        guard let secret = try Self.apiSecretOption.resolve(value: apiSecret, file: apiSecretFile, environment: environment) else {
            throw ValidationError("an API key secret is needed: --api-secret-file or PREFLIGHT_API_SECRET")
        }
        guard let accountSID = account ?? environment["PREFLIGHT_ACCOUNT"], !accountSID.isEmpty else {
            throw ValidationError("the API key's account sid is needed: --account or PREFLIGHT_ACCOUNT")
        }
        var routes = apps
        if routes.isEmpty, let text = environment["PREFLIGHT_APPS"] {
            routes = text.split(separator: ",").map { String($0.trimmingCharacters(in: .whitespaces)) }
        }
        var applications: [String: TestApplication] = [:]
        for route in routes {
            let parts = route.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, let application = TestApplication(rawValue: parts[1]) else {
                throw ValidationError("--app must be SID=echo or SID=record-playback, got \"\(route)\"")
            }
            applications[parts[0]] = application
        }
        if applications.isEmpty {
            applications = Dictionary(uniqueKeysWithValues: TestApplication.allCases.map { (EmbeddedEdge.applicationSID($0), $0) })
        }
        let port = try number(port, "PREFLIGHT_PORT", default: 8080)
        let mediaPort = try number(mediaPort, "PREFLIGHT_MEDIA_PORT", default: 0)
        guard (0...65535).contains(port), (0...65535).contains(mediaPort) else {
            throw ValidationError("ports must be 0 to 65535, got \(port) and \(mediaPort)")
        }
        let advertisedPort = try (advertisePort != nil || environment["PREFLIGHT_ADVERTISE_PORT"] != nil)
            ? number(advertisePort, "PREFLIGHT_ADVERTISE_PORT", default: 0) : nil
        if let advertisedPort, !(1...65535).contains(advertisedPort) {
            throw ValidationError("--advertise-port must be 1 to 65535, got \(advertisedPort)")
        }
        let sessions = try number(maxSessions, "PREFLIGHT_MAX_SESSIONS", default: 1000)
        let duration = try number(maxDuration, "PREFLIGHT_MAX_DURATION", default: 120)
        guard sessions > 0, duration > 0 else { throw ValidationError("--max-sessions and --max-duration must be positive") }
        let helloTimeout = try number(signalingTimeout, "PREFLIGHT_SIGNALING_TIMEOUT", default: 10)
        guard (1...3600).contains(helloTimeout) else {
            throw ValidationError("--signaling-timeout must be 1 to 3600 seconds, got \(helloTimeout)")
        }
        let perAccount = try number(maxSessionsPerAccount, "PREFLIGHT_MAX_SESSIONS_PER_ACCOUNT", default: 500)
        let perIdentity = try number(maxSessionsPerIdentity, "PREFLIGHT_MAX_SESSIONS_PER_IDENTITY", default: 5)
        guard perAccount > 0, perIdentity > 0 else {
            throw ValidationError("--max-sessions-per-account and --max-sessions-per-identity must be positive")
        }
        var media = MediaService.Configuration()
        if let rate = packetRate ?? environment["PREFLIGHT_PACKET_RATE"].flatMap(Double.init) {
            guard rate > 0 else { throw ValidationError("--packet-rate must be positive, got \(rate)") }
            media.packetsPerSecondPerSource = rate
            media.burstPerSource = max(10, rate / 2)
        }
        var servers = iceServers
        if servers.isEmpty, let text = environment["PREFLIGHT_ICE_SERVERS"] {
            servers = text.split(separator: ",").map { String($0.trimmingCharacters(in: .whitespaces)) }
        }
        for url in servers {
            do { _ = try ICEServerURL(url) } catch { throw ValidationError("--ice-server: \(error.message)") }
        }
        let lifetime = try number(turnCredentialLifetime, "PREFLIGHT_TURN_CREDENTIAL_LIFETIME", default: 3600)
        guard lifetime > 0 else { throw ValidationError("--turn-credential-lifetime must be positive, got \(lifetime)") }
        let sharedSecret = try Self.turnSecretOption.resolve(value: turnSecret, file: turnSecretFile, environment: environment)
        if servers.contains(where: { $0.hasPrefix("turn") }), sharedSecret == nil {
            throw ValidationError("a TURN server needs --turn-secret-file (or PREFLIGHT_TURN_SECRET) to make credentials")
        }
        let tls = try tlsConfiguration(environment: environment)
        let limits = EdgeHTTPLimits(
            headerTimeout: .seconds(try number(headerTimeout, "PREFLIGHT_HEADER_TIMEOUT", default: 10)),
            idleTimeout: .seconds(try number(idleTimeout, "PREFLIGHT_IDLE_TIMEOUT", default: 60)),
            maximumConnections: try number(maxConnections, "PREFLIGHT_MAX_CONNECTIONS", default: 2048),
            maximumConnectionsPerAddress: try number(maxConnectionsPerAddress, "PREFLIGHT_MAX_CONNECTIONS_PER_ADDRESS", default: 64))
        guard limits.headerTimeout > .zero, limits.idleTimeout > .zero, limits.maximumConnections > 0,
            limits.maximumConnectionsPerAddress > 0
        else {
            throw ValidationError(
                "--header-timeout, --idle-timeout, --max-connections and --max-connections-per-address must be positive")
        }
        return EdgeConfiguration(
            host: host ?? environment["PREFLIGHT_HOST"] ?? "127.0.0.1", httpPort: port, mediaPort: mediaPort,
            advertisedAddress: advertise ?? environment["PREFLIGHT_ADVERTISE"], advertisedMediaPort: advertisedPort,
            edgeName: edgeName ?? environment["PREFLIGHT_EDGE_NAME"] ?? "local", apiKeys: [key: secret],
            accounts: [key: accountSID], applications: applications,
            applicationAccounts: applications.mapValues { _ in accountSID },
            iceServers: servers.isEmpty ? [] : [ICEServer(urls: servers)], turnSecret: sharedSecret,
            turnCredentialLifetime: .seconds(lifetime), offersSTUN: !noEdgeSTUN, maximumSessions: sessions,
            maximumSessionsPerAccount: perAccount, maximumSessionsPerIdentity: perIdentity,
            maximumTestDuration: .seconds(duration), signalingTimeout: .seconds(helloTimeout), media: media, tls: tls,
            httpLimits: limits)
    }

    /// The TLS files from the options or the environment: both or neither.
    private func tlsConfiguration(environment: [String: String]) throws -> EdgeTLSConfiguration? {
        let certificate = tlsCert ?? environment["PREFLIGHT_TLS_CERT"]
        let key = tlsKey ?? environment["PREFLIGHT_TLS_KEY"]
        switch (certificate, key) {
        case (nil, nil):
            return nil
        case (let certificate?, let key?):
            return EdgeTLSConfiguration(certificateChainFile: certificate, privateKeyFile: key)
        default:
            throw CommandFailure(PreflightError(
                code: .invalidArgument, message: "--tls-cert and --tls-key go together (or PREFLIGHT_TLS_CERT and PREFLIGHT_TLS_KEY)"))
        }
    }

    /// Runs the edge until SIGINT or SIGTERM.
    public func run() async throws {
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let configuration = try edgeConfiguration()
        var logger = Logger(label: "preflight.edge", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = level
        let edge: EdgeServer
        do {
            edge = try await EdgeServer(configuration: configuration, logger: logger)
        } catch {
            throw CommandFailure(error)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await edge.run(gracefulShutdownSignals: [.sigint, .sigterm]) }
            let addresses = try await edge.addresses()
            // Unbuffered, so that a parent process reading the pipe sees the addresses at once.
            FileHandle.standardOutput.write(Data("signaling \(addresses.signalingURL)\nmedia \(addresses.media)\n".utf8))
            try await group.next()
            group.cancelAll()
        }
    }
}

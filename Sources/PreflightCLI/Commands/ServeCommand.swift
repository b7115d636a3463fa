import ArgumentParser
import Foundation
import Logging
import PreflightCore
import PreflightEdge
import UnixSignals

/// `preflight serve`: runs the edge server until SIGINT or SIGTERM.
public struct ServeCommand: AsyncParsableCommand {
    /// The subcommand's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the edge server: WebSocket signaling, access tokens, UDP media with the test applications.",
        discussion: """
            Most options can also come from the environment: PREFLIGHT_HOST, PREFLIGHT_PORT, \
            PREFLIGHT_MEDIA_PORT, PREFLIGHT_ADVERTISE, PREFLIGHT_ADVERTISE_PORT, PREFLIGHT_EDGE_NAME, \
            PREFLIGHT_ACCOUNT, PREFLIGHT_API_KEY, PREFLIGHT_API_SECRET, \
            PREFLIGHT_APPLICATIONS ("AP…=echo,AP…=record-playback"), PREFLIGHT_MAX_SESSIONS, \
            PREFLIGHT_MAX_SESSIONS_PER_ACCOUNT, PREFLIGHT_MAX_SESSIONS_PER_IDENTITY, PREFLIGHT_SIGNALING_TIMEOUT, \
            PREFLIGHT_MAX_DURATION, PREFLIGHT_PACKET_RATE, PREFLIGHT_ICE_SERVERS, PREFLIGHT_TURN_SECRET, \
            PREFLIGHT_TURN_CREDENTIAL_LIFETIME, PREFLIGHT_TLS_CERT, PREFLIGHT_TLS_KEY, PREFLIGHT_MAX_CONNECTIONS, \
            PREFLIGHT_MAX_CONNECTIONS_PER_ADDRESS, PREFLIGHT_IPV6_PREFIX_LENGTH, PREFLIGHT_HEADER_TIMEOUT, PREFLIGHT_IDLE_TIMEOUT, \
            PREFLIGHT_DATABASE, PREFLIGHT_RETENTION_DAYS, PREFLIGHT_MEMORY_STORE_MIB, PREFLIGHT_QUOTA_IDENTITY_MIB, PREFLIGHT_QUOTA_IDENTITY_ROWS, \
            PREFLIGHT_QUOTA_ACCOUNT_MIB, PREFLIGHT_QUOTA_ACCOUNT_ROWS. Secrets \
            belong in a file (--api-secret-file, --turn-secret-file) or the environment: a secret given as \
            --api-secret or --turn-secret is visible to every user of the machine in `ps`. Without \
            --application the local edge's application sids are served (`preflight token --application \
            echo` names them). With --tls-cert and --tls-key the edge serves https and wss only. Once \
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
    /// The signaling URL the init endpoint hands out.
    @Option(
        name: .customLong("public-url"),
        help: "The signaling URL GET /v1/init gives clients (wss://edge.example.com/signaling behind a load balancer). Default: the advertised address and this port.")
    public var publicURL: String?
    /// The account, API key and secret the edge trusts.
    @OptionGroup(title: "Credentials")
    public var credentials: CredentialOptions
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
    @Option(
        name: .customLong("max-connections-per-address"),
        help: "HTTP/WebSocket connections open at once from one IPv4 address or IPv6 prefix (default 64).")
    public var maxConnectionsPerAddress: Int?
    /// The bits of an IPv6 address that name its source for the connection caps.
    @Option(
        name: .customLong("ipv6-prefix-length"),
        help: "Leading bits of a client's IPv6 address that name its source for the connection caps (32-128, default 64: one subnet).")
    public var ipv6PrefixLength: Int?
    /// The HTTP request head timeout.
    @Option(name: .customLong("header-timeout"), help: "Seconds a connection may take to send its request head (default 10).")
    public var headerTimeout: Int?
    /// The HTTP idle timeout.
    @Option(name: .customLong("idle-timeout"), help: "Seconds an HTTP connection may stay silent; not WebSockets (default 60).")
    public var idleTimeout: Int?
    /// The signaling WebSockets' keepalive.
    @Option(name: .customLong("ping-interval"), help: "Seconds between the edge's pings on each signaling WebSocket, and how long one may go unanswered; 0 sends none (default 30).")
    public var pingInterval: Int?
    /// Sessions one account holds at once.
    @Option(name: .customLong("max-sessions-per-account"), help: "Sessions one account holds at once (default 500).")
    public var maxSessionsPerAccount: Int?
    /// Sessions one identity holds at once.
    @Option(name: .customLong("max-sessions-per-identity"), help: "Sessions one identity holds at once (default 5).")
    public var maxSessionsPerIdentity: Int?
    /// Application routes.
    @Option(
        name: .customLong("application"),
        help: "An application route SID=echo, SID=record-playback, SID=dial or SID=dial:answer-on-bridge (repeatable). Default: the local edge's sids.")
    public var applications: [String] = []
    /// The dial application's route table.
    @Option(
        name: .customLong("route"),
        help: "A route of the dial application: TO=client:IDENTITY, TO=echo or TO=record-playback (repeatable). Default: +18005551234=echo.")
    public var routes: [String] = []
    /// How long a dialed client rings.
    @Option(name: .customLong("ring-timeout"), help: "Seconds a dialed client's devices ring before the call fails with 31480 (default 30).")
    public var ringTimeout: Int?
    /// Call duration limit.
    @Option(name: .customLong("max-call-duration"), help: "Longest call between clients in seconds (default 14400).")
    public var maxCallDuration: Int?
    /// Session limit.
    @Option(
        name: .customLong("max-logged-calls"),
        help: "Calls whose Insights the edge keeps taking; past it the account holding the most forgets its oldest (default 20000).")
    public var maxLoggedCalls: Int?

    @Option(name: .customLong("max-logged-calls-per-account"), help: "Calls of one account whose Insights the edge keeps taking (default 10000).")
    public var maxLoggedCallsPerAccount: Int?

    @Option(
        name: .customLong("invite-rate"), help: "Invites to clients one caller may place per second, bursts of 10; more get 70108 (default 1).")
    public var inviteRate: Double?

    @Option(name: .customLong("max-sessions"), help: "Signaling sessions served at once (default 1000).")
    public var maxSessions: Int?
    /// The time to `hello`, and then to `invite`.
    @Option(name: .customLong("signaling-timeout"), help: "Seconds a connection may take to send hello, and then invite (default 10).")
    public var signalingTimeout: Int?
    /// How long a session whose connection was lost waits to be resumed.
    @Option(
        name: .customLong("session-resume-window"),
        help: "Seconds a session whose connection was lost waits for its client to resume it (0-300, 0 turns resuming off; default 10).")
    public var sessionResumeWindow: Int?
    /// Test duration limit.
    @Option(name: .customLong("max-duration"), help: "Longest test call in seconds (default 120).")
    public var maxDuration: Int?
    /// Per-source packet rate.
    @Option(name: .customLong("packet-rate"), help: "Datagrams per second accepted from one source (default 200).")
    public var packetRate: Double?
    /// Media sockets and threads.
    @Option(
        name: .customLong("media-threads"),
        help: "Threads serving UDP media, each with its own SO_REUSEPORT socket on the media port (1-64, default 1).")
    public var mediaThreads: Int?
    /// STUN/TURN servers handed out in welcome, and their TURN credentials.
    @OptionGroup(title: "ICE servers")
    public var iceServerOptions: ICEServerOptions
    /// Lifetime of the TURN credentials.
    @Option(name: .customLong("turn-credential-lifetime"), help: "Seconds the TURN credentials stay valid (default 3600).")
    public var turnCredentialLifetime: Int?
    /// Do not offer the edge's own STUN.
    @Flag(name: .customLong("no-edge-stun"), help: "Do not offer the edge's media port as a stun: server in welcome.")
    public var noEdgeSTUN = false
    /// Where reports and call events are stored.
    @Option(
        help: "Where reports and call events are stored: sqlite::memory: (default), sqlite:PATH, or postgres://USER:PASSWORD@HOST:PORT/DATABASE shared by many edges (default: PREFLIGHT_DATABASE).")
    public var database: String?
    /// Whether calls cross to the other edges sharing the PostgreSQL database.
    @Flag(
        name: .customLong("route-across-edges"),
        help: "Calls between clients reach devices registered on the other edges that share --database (PostgreSQL; each edge with its own --edge-name).")
    public var routeAcrossEdges = false
    /// Where the other edges send this edge's calls' media.
    @Option(
        name: .customLong("trunk-address"),
        help: "IP:PORT the other edges send this edge's calls' media to (with --route-across-edges; default: the advertised address and media port).")
    public var trunkAddress: String?
    /// An account's API-key requests a second.
    @Option(
        name: .customLong("api-rate"),
        help: "An account's API-key requests (REST API, pages, /status, /metrics) a second, bursts of ten times it (default 20).")
    public var apiRate: Double?
    /// How long SIGTERM lets the edge drain.
    @Option(
        name: .customLong("drain-limit"),
        help: "Seconds SIGTERM lets the edge drain before it stops: no new sessions, calls go on until they end (default 30 with --route-across-edges, else 0: stop at once).")
    public var drainLimit: Int?
    /// How long reports are kept.
    @Option(
        name: .customLong("retention-days"),
        help: "Days reports and call events of this edge's account are kept; older ones are deleted hourly (1-36500, default 30).")
    public var retentionDays: Int?
    /// The in-memory store's cap, MiB.
    @Option(
        name: .customLong("memory-store-mib"),
        help: "MiB of reports and call events the in-memory store keeps before the heaviest identity's oldest go (default 64).")
    public var memoryStoreMiB: Int?
    /// What one identity may store per hour, MiB.
    @Option(name: .customLong("quota-identity-mib"), help: "MiB of reports and call events one identity may store per hour (default 16).")
    public var quotaIdentityMiB: Int?
    /// What one identity may store per hour, rows.
    @Option(name: .customLong("quota-identity-rows"), help: "Reports and call events one identity may store per hour (default 10000).")
    public var quotaIdentityRows: Int?
    /// What one account may store per hour, MiB.
    @Option(name: .customLong("quota-account-mib"), help: "MiB of reports and call events one account may store per hour (default 1024).")
    public var quotaAccountMiB: Int?
    /// What one account may store per hour, rows.
    @Option(name: .customLong("quota-account-rows"), help: "Reports and call events one account may store per hour (default 1000000).")
    public var quotaAccountRows: Int?
    /// Log level.
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (default info).")
    public var logLevel: String = "info"
    /// `--app`, the old spelling of `--application` (hidden; ``validate()`` moves it to ``applications``).
    @Option(name: .customLong("app"), help: .hidden)
    var applicationsOldSpelling: [String] = []

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    /// The whole-number options with their rules.
    var numberOptions: [(NumberSetting, Int?)] {
        [
            (.port, port), (.mediaPort, mediaPort), (.advertisePort, advertisePort), (.maxSessions, maxSessions),
            (.maxSessionsPerAccount, maxSessionsPerAccount), (.maxSessionsPerIdentity, maxSessionsPerIdentity),
            (.maxDuration, maxDuration), (.signalingTimeout, signalingTimeout), (.sessionResumeWindow, sessionResumeWindow),
            (.ringTimeout, ringTimeout), (.maxCallDuration, maxCallDuration), (.mediaThreads, mediaThreads),
            (.turnCredentialLifetime, turnCredentialLifetime),
            (.maxLoggedCalls, maxLoggedCalls), (.maxLoggedCallsPerAccount, maxLoggedCallsPerAccount),
            (.maxConnections, maxConnections), (.maxConnectionsPerAddress, maxConnectionsPerAddress),
            (.ipv6PrefixLength, ipv6PrefixLength),
            (.headerTimeout, headerTimeout), (.idleTimeout, idleTimeout), (.pingInterval, pingInterval),
            (.retentionDays, retentionDays), (.memoryStoreMiB, memoryStoreMiB), (.quotaIdentityMiB, quotaIdentityMiB), (.quotaIdentityRows, quotaIdentityRows),
            (.quotaAccountMiB, quotaAccountMiB), (.quotaAccountRows, quotaAccountRows),
        ]
    }

    /// Checks the options as given; each `ValidationError` names its rule. What may also come
    /// from the environment is checked again, with the same rules, by ``edgeConfiguration(environment:)``.
    public mutating func validate() throws {
        applications = try OldSpelling.merge(applicationsOldSpelling, into: applications, oldName: "--app", newName: "--application")
        applicationsOldSpelling = []
        for (setting, value) in numberOptions {
            if let value { try setting.check(value) }
        }
        if let packetRate, !(packetRate > 0) { throw ValidationError("--packet-rate must be positive, got \(packetRate)") }
        if let inviteRate, !(inviteRate > 0 && inviteRate.isFinite) { throw ValidationError("--invite-rate must be positive, got \(inviteRate)") }
        _ = try ApplicationRoutes.parse(applications)
        _ = try DialRoutes.parse(routes)
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    /// Runs the edge until SIGINT or SIGTERM.
    public func run() async throws {
        let configuration = try edgeConfiguration()
        var logger = Logger(label: "preflight.edge", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
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

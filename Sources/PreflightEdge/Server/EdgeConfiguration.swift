import CoreMetrics
import NIOCore
import PreflightCore
import Prometheus

/// Everything an ``EdgeServer`` needs: addresses, API keys, applications and the limits that
/// protect it. Every property has a documented default except the API keys.
public struct EdgeConfiguration: Sendable {
    /// Address the HTTP/WebSocket and UDP media sockets bind to; `"127.0.0.1"` by default.
    public var host: String
    /// HTTP and WebSocket port; 0 (an ephemeral port) by default.
    public var httpPort: Int
    /// UDP media port; 0 (an ephemeral port) by default.
    public var mediaPort: Int
    /// The address the edge's host candidate advertises; the bind ``host`` by default (set it when
    /// binding a wildcard address).
    public var advertisedAddress: String?
    /// The port the edge's host candidate advertises; the bound media port by default (set it when
    /// a NAT, a load balancer or a test relay forwards another port to the edge).
    public var advertisedMediaPort: Int?
    /// The edge location's name (the report's `edge`); `"local"` by default.
    public var edgeName: String
    /// API key sid → secret (at least 32 bytes) that access tokens are verified with.
    public var apiKeys: [String: String]
    /// API key sid → the account sid the key belongs to; every key needs one. A token's subject
    /// must be its key's account (20103), so one account's key cannot mint tokens for another.
    public var accounts: [String: String]
    /// Application sid → test application; outgoing calls are routed by the token's grant.
    public var applications: [String: TestApplication]
    /// Application sid → the `dial` application's settings: outgoing calls of tokens with that
    /// application reach the callee their `To` names (``DialTarget``). Empty by default.
    public var dialApplications: [String: DialConfiguration] = [:]
    /// The route table of the `dial` application: a `To` (a number, a name) → where it leads.
    /// A `To` without an entry is read as a target itself (`client:alice`, `echo`). Empty by default.
    public var routes: [String: DialTarget] = [:]
    /// Where reports and call Insights events are stored (`--database`); SQLite in memory by
    /// default (lost when the edge stops).
    public var store: StoreLocation = .sqliteInMemory
    /// Whether calls between clients cross to the other edges that share ``store`` (PostgreSQL
    /// only): registrations and call signaling go through the database (docs/protocol.md,
    /// "Between edges"); each edge needs its own ``edgeName``.
    public var routesAcrossEdges = false
    /// Where the other edges send this edge's calls' media (``routesAcrossEdges``): an IP
    /// address and port of the media socket they reach (`--trunk-address`); by default the
    /// advertised address and media port.
    public var trunkAddress: SocketAddress?
    /// How long SIGTERM lets the edge drain before it stops (`--drain-limit`): new sessions are
    /// refused, sessions in no call are told to register elsewhere, calls go on until they end
    /// or this limit. Zero (the default) stops at once.
    public var drainLimit: Duration = .zero
    /// How long reports and call events are kept (`--retention-days`); 30 days by default, so an
    /// edge whose operator set nothing still keeps its store bounded (with ``storeQuota``); `nil`
    /// keeps them until deleted by hand. The edge sweeps once at start and then every hour, and
    /// only the accounts it serves (``accounts``): edges sharing a database each apply their own
    /// retention to their own accounts.
    public var reportRetention: Duration? = .seconds(30 * 86_400)
    /// What each identity and each account may store per window (reports and call events,
    /// ``StoreQuota``): 16 MiB and 10,000 rows an identity, 1 GiB and 1,000,000 rows an account,
    /// per hour by default. Over it an upload gets 429 with 70708 and events are dropped.
    public var storeQuota = StoreQuota.Limits()
    /// The most bytes of reports and call events an in-memory store (``store`` `.sqliteInMemory`)
    /// keeps; past it the heaviest owner's oldest rows go (``ReportStore/memoryLimit``). 64 MiB by
    /// default.
    public var memoryStoreLimit = 64 << 20
    /// The registry `GET /metrics` renders in the Prometheus text format; the edge then records
    /// its metrics into it. `nil` by default: no `/metrics`, and the edge records into
    /// ``metricsFactory``.
    public var prometheusRegistry: PrometheusCollectorRegistry? = nil
    /// Where the edge records its metrics when ``prometheusRegistry`` is `nil`; `nil` (the
    /// process's `MetricsSystem.factory`, a no-op unless the application bootstrapped one) by
    /// default. The edge never bootstraps the metrics system.
    public var metricsFactory: (any MetricsFactory)? = nil
    /// How fast the HTTP API's callers may go, each in a bucket of its own (``EdgeRateLimits``):
    /// an account's API-key requests, an identity's uploads and init requests, an account's
    /// accepted uploads. Over one: 429 with 70706.
    public var rateLimits = EdgeRateLimits()

    /// The signaling URL the init endpoint (`GET /v1/init`) gives clients, for an edge behind a
    /// load balancer or a TLS terminator; `nil` (default): the advertised address (else the bound
    /// one) with the listening port, `ws` or `wss` as the edge serves.
    public var publicSignalingURL: String?
    /// The longest call between clients; the edge hangs up both parties with 70106 when it is
    /// reached. 4 hours by default.
    public var maximumCallDuration: Duration = .seconds(4 * 3600)
    /// How fast callers invite and callees are rung, how many calls the Insights log keeps per
    /// account, how fast sessions and calls post Insights; ``CallLimits``'s defaults by default.
    public var callLimits = CallLimits()
    /// Application sid → the account sid it belongs to: a call is routed to an application only
    /// for tokens of its account (31002 otherwise). An application without an entry serves every
    /// account of the edge. Empty by default.
    public var applicationAccounts: [String: String]
    /// STUN/TURN servers handed out in `welcome`; none by default. A server without a username
    /// gets per-session time-limited credentials when ``turnSecret`` is set.
    public var iceServers: [ICEServer]
    /// The secret shared with the TURN servers (coturn's `static-auth-secret` with
    /// `use-auth-secret`): each welcome carries credentials of the TURN REST API scheme made with
    /// it for the token's identity. `nil` (no credentials made) by default.
    public var turnSecret: String?
    /// How long those credentials stay valid; 1 hour by default.
    public var turnCredentialLifetime: Duration
    /// Whether `welcome` also offers the edge's own media port as a `stun:` server (it answers
    /// plain Binding requests there, so a client learns its server-reflexive address on the
    /// path media will take); `true` by default.
    public var offersSTUN: Bool
    /// Signaling sessions served at once, counted from a `hello` with a valid token; further
    /// sessions are refused with 70101. 1000 by default.
    public var maximumSessions: Int
    /// Sessions one account (a token's `sub`) holds at once; further ones are refused with 70104.
    /// 500 by default.
    public var maximumSessionsPerAccount: Int
    /// Sessions one identity of an account holds at once; further ones are refused with 70104.
    /// 5 by default.
    public var maximumSessionsPerIdentity: Int
    /// The longest test call; the edge hangs up with 70102 when it is reached. 120 s by default.
    public var maximumTestDuration: Duration
    /// How long a new connection may take to send `hello`, and a welcomed one to send `invite`;
    /// 10 s by default.
    public var signalingTimeout: Duration
    /// How long a session whose connection was lost without a hangup waits for its client to
    /// continue it on a new connection (`resume`, docs/protocol.md); its call and media go on
    /// meanwhile. 10 s by default; 0 turns resuming off.
    public var sessionResumeWindow: Duration
    /// How long record-playback waits for the caller's first audio before giving up; 10 s by default.
    public var recordingStartTimeout: Duration
    /// The recording's length (the TwiML `<Record maxLength="5">`); 5 s by default.
    public var recordingDuration: Duration
    /// The pause after playback before hanging up (the TwiML `<Pause length="3"/>`); 3 s by default.
    public var playbackPause: Duration
    /// The media service's own limits.
    public var media: MediaService.Configuration
    /// TLS for the HTTP/WebSocket listener (`https://`, `wss://`); `nil` (plain `ws://`, for
    /// loopback and labs only) by default.
    public var tls: EdgeTLSConfiguration?
    /// Timeouts and connection caps of the HTTP/WebSocket listener; ``EdgeHTTPLimits``'s defaults
    /// (header 10 s, idle 60 s, 2048 connections, 64 per source address) by default.
    public var httpLimits: EdgeHTTPLimits

    /// Creates a configuration; see each property for its default.
    public init(
        host: String = "127.0.0.1",
        httpPort: Int = 0,
        mediaPort: Int = 0,
        advertisedAddress: String? = nil,
        advertisedMediaPort: Int? = nil,
        edgeName: String = "local",
        apiKeys: [String: String],
        accounts: [String: String],
        applications: [String: TestApplication],
        applicationAccounts: [String: String] = [:],
        iceServers: [ICEServer] = [],
        turnSecret: String? = nil,
        turnCredentialLifetime: Duration = .seconds(3600),
        offersSTUN: Bool = true,
        maximumSessions: Int = 1000,
        maximumSessionsPerAccount: Int = 500,
        maximumSessionsPerIdentity: Int = 5,
        maximumTestDuration: Duration = .seconds(120),
        signalingTimeout: Duration = .seconds(10),
        sessionResumeWindow: Duration = .seconds(10),
        recordingStartTimeout: Duration = .seconds(10),
        recordingDuration: Duration = .seconds(5),
        playbackPause: Duration = .seconds(3),
        media: MediaService.Configuration = MediaService.Configuration(),
        tls: EdgeTLSConfiguration? = nil,
        httpLimits: EdgeHTTPLimits = EdgeHTTPLimits()
    ) {
        self.host = host
        self.httpPort = httpPort
        self.mediaPort = mediaPort
        self.advertisedAddress = advertisedAddress
        self.advertisedMediaPort = advertisedMediaPort
        self.edgeName = edgeName
        self.apiKeys = apiKeys
        self.accounts = accounts
        self.applications = applications
        self.applicationAccounts = applicationAccounts
        self.iceServers = iceServers
        self.turnSecret = turnSecret
        self.turnCredentialLifetime = turnCredentialLifetime
        self.offersSTUN = offersSTUN
        self.maximumSessions = maximumSessions
        self.maximumSessionsPerAccount = maximumSessionsPerAccount
        self.maximumSessionsPerIdentity = maximumSessionsPerIdentity
        self.maximumTestDuration = maximumTestDuration
        self.signalingTimeout = signalingTimeout
        self.sessionResumeWindow = sessionResumeWindow
        self.recordingStartTimeout = recordingStartTimeout
        self.recordingDuration = recordingDuration
        self.playbackPause = playbackPause
        self.media = media
        self.tls = tls
        self.httpLimits = httpLimits
    }
}

import CoreMetrics
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PreflightCore
import Prometheus
import Synchronization
import UnixSignals

/// The edge server: `GET /healthz` (up or not), `GET /status` (counters, behind HTTP Basic auth
/// with an API key), the signaling WebSocket at `/signaling` (docs/protocol.md) with access-token
/// auth and call routing, and the UDP ``MediaService`` running the test applications. With
/// ``EdgeConfiguration/tls`` the HTTP port speaks only TLS; ``EdgeConfiguration/httpLimits``
/// caps and times out its connections.
///
/// ```swift
/// let edge = try await EdgeServer(configuration: configuration, logger: logger)
/// try await withThrowingTaskGroup(of: Void.self) { group in
///     group.addTask { try await edge.run() }
///     let addresses = try await edge.addresses()   // once both sockets are bound
///     …
/// }
/// ```
public final class EdgeServer: Sendable {
    /// Where a running edge listens.
    public struct Addresses: Sendable, Hashable {
        /// The HTTP/WebSocket listener.
        public var http: SocketAddress
        /// The UDP media socket.
        public var media: SocketAddress
        /// The signaling URL clients connect to: `wss://host:port/signaling` with TLS,
        /// `ws://host:port/signaling` without.
        public var signalingURL: String
    }

    /// The configuration in force.
    public let configuration: EdgeConfiguration
    /// The media service (its counters are the edge's media metrics).
    public let media: MediaService
    let verifier: AccessTokenVerifier
    let logger: Logger
    let tlsContext: NIOSSLContext?
    let httpLimiter: HTTPConnectionLimiter
    private let ready = Mutex<ReadyState>(.waiting([]))
    /// Sessions admitted after a valid `hello`, in all and per account and identity.
    let admissions: SessionAdmissionGate
    /// Sessions whose connection was lost, waiting to be resumed on a new one.
    let resumptions = SessionResumptions()
    /// The registrar and the calls between clients.
    let calls: CallRouter
    /// The signaling sessions running now, by their queue: told when the edge drains.
    let liveSessions = Mutex<[ObjectIdentifier: SessionInbox]>([:])
    /// Set once the edge drains (``drain()``): a `hello` is refused (70109).
    let draining = Atomic<Bool>(false)
    /// The other edges sharing the store, and the bus to them (``EdgeConfiguration/routesAcrossEdges``).
    let cluster: EdgeCluster?
    let clusterBus: PostgresClusterBus?
    /// The Insights events of recent calls: who may post to which call, and how many they did.
    let callEvents: CallEventLog
    /// Reports and call events (``EdgeConfiguration/store``).
    public let store: ReportStore
    /// Hands call events to the store off the signaling path.
    let storeWriter: StoreWriter
    /// The edge's metrics.
    let metrics: EdgeMetrics
    /// The HTTP API's request rates (``EdgeConfiguration/rateLimits``).
    let rateLimiter: RequestRateLimiter

    /// The longest edge name (``EdgeConfiguration/edgeName``, a column of every stored row), bytes.
    public static let maximumEdgeNameLength = 64

    /// Seconds on a monotonic clock (since the edge was made), for the signaling rate limits.
    var monotonicSeconds: Double { epoch.duration(to: .now).inSeconds }
    /// When the edge was made, for ``monotonicSeconds``.
    private let epoch = ContinuousClock.now

    /// Signaling sessions admitted now (a valid `hello` and not ended).
    public var sessionCount: Int { admissions.total }

    private enum ReadyState {
        case waiting([CheckedContinuation<Addresses, any Error>])
        case ready(Addresses)
        case failed(any Error)
    }

    /// Creates an edge; nothing is bound until ``run()``.
    /// - Throws: ``PreflightError`` `.invalidArgument` for an API key secret shorter than 32 bytes,
    ///   an API key without an account, a TLS certificate or key that cannot be read or used, a
    ///   connection cap below 1, or an IPv6 prefix length outside ``EdgeHTTPLimits/ipv6PrefixLengths``.
    public init(configuration: EdgeConfiguration, logger: Logger) async throws(PreflightError) {
        self.configuration = configuration
        self.logger = logger
        for sid in configuration.apiKeys.keys.sorted() where (configuration.accounts[sid] ?? "").isEmpty {
            throw PreflightError(
                code: .invalidArgument, message: "edge: API key \"\(sid)\" has no account; tokens must name their key's account")
        }
        let limits = configuration.httpLimits
        guard limits.maximumConnections >= 1, limits.maximumConnectionsPerAddress >= 1 else {
            throw PreflightError(
                code: .invalidArgument,
                message: "edge: connection caps must be at least 1, got \(limits.maximumConnections) in all and "
                    + "\(limits.maximumConnectionsPerAddress) per address")
        }
        guard EdgeHTTPLimits.ipv6PrefixLengths.contains(limits.ipv6PrefixLength) else {
            throw PreflightError(
                code: .invalidArgument,
                message: "edge: the IPv6 prefix length must be \(EdgeHTTPLimits.ipv6PrefixLengths.lowerBound) to "
                    + "\(EdgeHTTPLimits.ipv6PrefixLengths.upperBound), got \(limits.ipv6PrefixLength)")
        }
        httpLimiter = HTTPConnectionLimiter(
            maximumConnections: limits.maximumConnections, maximumConnectionsPerAddress: limits.maximumConnectionsPerAddress,
            ipv6PrefixLength: limits.ipv6PrefixLength)
        tlsContext = try configuration.tls?.makeContext()
        media = MediaService(configuration: configuration.media)
        if configuration.routesAcrossEdges {
            guard case .postgres(let location) = configuration.store else {
                throw PreflightError(
                    code: .invalidArgument, message: "edge: routing calls across edges needs a PostgreSQL store the edges share")
            }
            let cluster = EdgeCluster(edgeName: configuration.edgeName)
            let calls = CallRouter(media: media, limits: configuration.callLimits, cluster: cluster)
            self.cluster = cluster
            self.calls = calls
            clusterBus = PostgresClusterBus(location: location, cluster: cluster, router: calls, logger: logger)
        } else {
            cluster = nil
            clusterBus = nil
            calls = CallRouter(media: media, limits: configuration.callLimits)
        }
        let callEvents = CallEventLog(limits: configuration.callLimits)
        self.callEvents = callEvents
        storeWriter = StoreWriter { callEvents.countNotStored($0.events.count, callSid: $0.callSid, account: $0.account) }
        admissions = SessionAdmissionGate(limits: .init(
            total: configuration.maximumSessions, perAccount: configuration.maximumSessionsPerAccount,
            perIdentity: configuration.maximumSessionsPerIdentity))
        if let retention = configuration.reportRetention, !(.seconds(1)...Duration.seconds(100 * 366 * 86_400)).contains(retention) {
            throw PreflightError(code: .invalidArgument, message: "edge: the report retention must be 1 s to 100 years, got \(retention)")
        }
        store = ReportStore(
            location: configuration.store, logger: logger, memoryLimit: configuration.memoryStoreLimit, quota: configuration.storeQuota)
        if let registry = configuration.prometheusRegistry {
            var factory = PrometheusMetricsFactory(registry: registry)
            factory.valueHistogramBuckets = EdgeMetrics.buckets
            metrics = EdgeMetrics(factory: factory)
        } else {
            metrics = EdgeMetrics(factory: configuration.metricsFactory ?? MetricsSystem.factory)
        }
        rateLimiter = RequestRateLimiter(configuration.rateLimits)
        guard configuration.edgeName.utf8.count <= Self.maximumEdgeNameLength else {
            throw PreflightError(
                code: .invalidArgument,
                message: "edge: the edge name is \(configuration.edgeName.utf8.count) bytes, over \(Self.maximumEdgeNameLength)")
        }
        verifier = try await AccessTokenVerifier(
            configuration: .init(apiKeys: configuration.apiKeys, accounts: configuration.accounts))
    }

    /// The addresses the edge listens on, once ``run()`` has bound them.
    /// - Throws: the error that stopped ``run()`` before it was ready.
    public func addresses() async throws -> Addresses {
        try await withCheckedThrowingContinuation { continuation in
            let result = ready.withLock { state -> Result<Addresses, any Error>? in
                switch state {
                case .waiting(var waiters):
                    waiters.append(continuation)
                    state = .waiting(waiters)
                    return nil
                case .ready(let addresses): return .success(addresses)
                case .failed(let error): return .failure(error)
                }
            }
            if let result { continuation.resume(with: result) }
        }
    }

    /// Where the edge listens, once it does.
    var runningAddresses: Addresses? {
        ready.withLock { state in
            if case .ready(let addresses) = state { return addresses }
            return nil
        }
    }

    private func resolveReady(_ result: Result<Addresses, any Error>) {
        let waiters = ready.withLock { state -> [CheckedContinuation<Addresses, any Error>] in
            guard case .waiting(let waiters) = state else { return [] }
            switch result {
            case .success(let addresses): state = .ready(addresses)
            case .failure(let error): state = .failed(error)
            }
            return waiters
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// Opens the store, binds the media socket and serves HTTP and WebSocket signaling until the
    /// task is cancelled. A socket that cannot be bound (media or HTTP) is ``PreflightError``
    /// `.socketBindFailed`; a store that cannot be opened, `.storeUnavailable`.
    /// - Parameter gracefulShutdownSignals: signals that stop the server (the `serve` command
    ///   passes SIGINT and SIGTERM); none when embedded.
    public func run(gracefulShutdownSignals: [UnixSignal] = []) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.store.run() }
            defer { group.cancelAll() }
            do {
                try await store.waitUntilReady()
            } catch {
                resolveReady(.failure(error))
                throw error
            }
            // What uses the store stops (and is awaited) before the store closes.
            try await withThrowingTaskGroup(of: Void.self) { users in
                users.addTask { await self.storeWriter.run(store: self.store, logger: self.logger) }
                users.addTask { await self.housekeeping() }
                if let clusterBus { users.addTask { try await clusterBus.run() } }
                defer { users.cancelAll() }
                // Registrations made once the edge serves are announced at once, not after the
                // bus's connections come up (hundreds of ms at a distant database).
                if let clusterBus {
                    do {
                        try await clusterBus.waitUntilReady()
                    } catch {
                        let failure = PreflightError(code: .storeUnavailable, message: "the edges' message bus did not start: \(error)")
                        resolveReady(.failure(failure))
                        throw failure
                    }
                }
                // SIGTERM drains first when the edge has a drain limit (``drain()``); the other
                // signals stop it at once.
                let drains = configuration.drainLimit > .zero && gracefulShutdownSignals.contains(.sigterm)
                let immediate = drains ? gracefulShutdownSignals.filter { $0 != .sigterm } : gracefulShutdownSignals
                users.addTask { try await self.serve(gracefulShutdownSignals: immediate) }
                if drains {
                    let terms = await UnixSignalsSequence(trapping: .sigterm)
                    users.addTask {
                        for await _ in terms {
                            await self.drain()
                            return
                        }
                    }
                }
                // The first to end (the server, or a drain that finished) ends the edge.
                try await users.next()
            }
        }
    }

    private func serve(gracefulShutdownSignals: [UnixSignal]) async throws {
        let mediaEndpoint: MediaEndpoint
        do {
            mediaEndpoint = try await media.bind(host: configuration.host, port: configuration.mediaPort)
        } catch {
            let failure = PreflightError(
                code: .socketBindFailed,
                message: "edge: cannot bind UDP media on \(configuration.host):\(configuration.mediaPort)", underlying: error)
            resolveReady(.failure(failure))
            throw failure
        }
        do {
            try await serve(mediaAddress: mediaEndpoint.localAddress, gracefulShutdownSignals: gracefulShutdownSignals)
        } catch {
            await mediaEndpoint.close()
            throw error
        }
        await mediaEndpoint.close()
    }

    private func serve(mediaAddress: SocketAddress, gracefulShutdownSignals: [UnixSignal]) async throws {
        if let cluster {
            // The other edges send this edge's calls' media here: the trunk address set, else
            // the address and port the edge advertises to clients.
            cluster.trunkAddress =
                configuration.trunkAddress
                ?? (try? SocketAddress(ipAddress: advertisedAddress, port: configuration.advertisedMediaPort ?? mediaAddress.port ?? 0))
        }
        let webSocketResponder = makeWebSocketRouter(mediaPort: mediaAddress.port ?? 0).buildResponder()
        let (limits, limiter, tls) = (configuration.httpLimits, httpLimiter, tlsContext)
        let scheme = tls == nil ? "ws" : "wss"
        let application = Application(
            router: makeRouter(),
            server: HTTPServerBuilder { responder in
                EdgeHTTPChannel(
                    base: HTTP1WebSocketUpgradeChannel(
                        responder: responder, webSocketResponder: webSocketResponder,
                        // Text frames must be valid UTF-8 (RFC 6455 §8.1): invalid ones close with
                        // 1007. The session waits for the client's close answer itself (2 s,
                        // `SignalingSession.closeDrain`); the library's own wait, after it, is cut
                        // from 15 s to 1 s. The edge's own keepalive pings instead of the
                        // library's (`WebSocketKeepaliveHandler`: why).
                        configuration: .init(ws: .init(
                            maxFrameSize: SignalingMessage.maximumTextLength, autoPing: .disabled, closeTimeout: .seconds(1),
                            validateUTF8: true))),
                    limits: limits, limiter: limiter, tls: tls)
            },
            configuration: .init(address: .hostname(configuration.host, port: configuration.httpPort), serverName: "preflight-edge"),
            onServerRunning: { [self] channel in
                guard let http = channel.localAddress else { return }
                let host = http.ipAddress.map { $0.contains(":") ? "[\($0)]" : $0 } ?? configuration.host
                let addresses = Addresses(
                    http: http, media: mediaAddress, signalingURL: "\(scheme)://\(host):\(http.port ?? 0)/signaling")
                logger.info(
                    "edge running", metadata: ["signaling": "\(addresses.signalingURL)", "media": "\(mediaAddress)"])
                resolveReady(.success(addresses))
            },
            logger: logger)
        do {
            if gracefulShutdownSignals.isEmpty {
                try await application.run()
            } else {
                try await application.runService(gracefulShutdownSignals: gracefulShutdownSignals)
            }
        } catch {
            // Failing before the server ran is failing to listen (the port is in use, the address
            // is not this host's): a coded error, as for the media socket.
            let starting = ready.withLock { state in
                if case .waiting = state { true } else { false }
            }
            let failure: any Error =
                starting && !(error is CancellationError)
                ? PreflightError(
                    code: .socketBindFailed,
                    message: "edge: cannot listen for HTTP on \(configuration.host):\(configuration.httpPort)", underlying: error)
                : error
            resolveReady(.failure(failure))
            throw failure
        }
        resolveReady(.failure(PreflightError(code: .cancelled, message: "edge: stopped before it was running")))
    }

    private func makeWebSocketRouter(mediaPort: Int) -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.ws("signaling") { [self] inbound, outbound, context in
            let session = SignalingSession(edge: self, mediaPort: mediaPort, logger: context.logger)
            try await session.run(inbound: inbound, outbound: outbound)
        }
        return router
    }
}

import Logging
import NIOCore
import NIOSSL
import PreflightCore
import Synchronization

/// Moves an ``ICEAgent``'s bytes: binds its UDP sockets, resolves and connects its servers,
/// feeds it what arrives and the time, sends what it asks, and delivers its events and the
/// media over the selected pair. The agent's logic is all in ``ICEAgent``; this is the thin NIO
/// part.
///
/// Time: the driver arms one timer, on the IPv4 socket's event loop, for the agent's
/// ``ICEAgent/nextDeadline`` and polls the agent when it fires; after every input it reads the
/// deadline again and re-arms only when it came forward. There is no periodic tick: an idle
/// connected agent wakes for its consent checks and nothing else.
///
/// Datagrams are handled on the sockets' event loops as they arrive (no task hop). Events go to
/// the `events` function given to ``bind(configuration:origin:logger:events:)`` in the order the
/// agent produced them, one at a time and outside the agent's lock, so a handler may call
/// ``withAgent(_:)`` or feed the driver again. Media goes to the function given to
/// ``receiveMedia(_:)`` (on the event loop, in arrival order), else as ``Event/media(_:)``.
///
/// Start ``run()`` in a task, then ``gather(servers:)``, and once the remote candidates are known
/// ``connect(remote:)``. ``close()`` ends it.
public final class ICEAgentDriver: Sendable {
    /// What the driver reports, in the order it happened.
    public enum Event: Sendable {
        /// Something the agent reported.
        case agent(ICEAgent.Event)
        /// RTP or RTCP that came over the selected pair, stamped with its arrival (unless
        /// ``ICEAgentDriver/receiveMedia(_:)`` took it).
        case media(Datagram)
        /// The first RTP or RTCP datagram over a selected pair arrived (once per driver, before
        /// that datagram is delivered).
        case mediaStarted(ContinuousClock.Instant)
    }

    /// The configuration it was made with.
    public let configuration: ICEAgentDriverConfiguration
    /// Time 0 of the agent's clock.
    public let origin: ContinuousClock.Instant
    let deliver: @Sendable (Event) -> Void
    let state: Mutex<State>
    let socket: MediaSocket
    let ipv6Socket: MediaSocket?
    let streams = Mutex<[ICEAgent.ServerID: TURNStreamConnection]>([:])
    /// The sockets of networks that appeared during the run (``addNetwork(_:)``).
    let networkSockets = Mutex(NetworkSockets())
    let work: AsyncStream<Work>
    let workContinuation: AsyncStream<Work>.Continuation
    let logger: Logger

    /// The agent and what the driver keeps beside it, under one lock.
    struct State: Sendable {
        var agent: ICEAgent
        /// The armed timer, the agent time it fires at, and its generation.
        var timer: (task: Scheduled<Void>, deadline: Double, generation: UInt64)?
        /// Timers armed so far: each timer's generation.
        var timersArmed: UInt64 = 0
        /// Events produced and not yet delivered, oldest first.
        var outbox: [Event] = []
        /// Whether a thread is delivering the outbox (the others only add to it).
        var delivering = false
        var mediaStarted = false
        /// Where media goes instead of the events (``ICEAgentDriver/receiveMedia(_:)``).
        var mediaReceiver: (@Sendable (Datagram) -> Void)?
        var closed = false
    }

    enum Work: Sendable {
        case resolve(ICEAgent.ServerID, host: String, port: Int)
        case connect(ICEAgent.ServerID, address: TransportAddress, url: ICEServerURL)
    }

    /// Binds the agent's sockets.
    /// - Parameters:
    ///   - configuration: the agent's and the driver's settings.
    ///   - origin: time 0 of the agent's clock; now by default.
    ///   - logger: where the driver logs servers that gave no candidate and refused channels.
    ///   - events: receives the driver's events, in order, one at a time; nothing after ``close()``.
    /// - Throws: ``PreflightError`` when the IPv4 socket cannot be bound. A host without IPv6
    ///   simply gets no IPv6 socket.
    public static func bind(
        configuration: ICEAgentDriverConfiguration, origin: ContinuousClock.Instant = .now, logger: Logger,
        events: @escaping @Sendable (Event) -> Void
    ) async throws(PreflightError) -> ICEAgentDriver {
        // The sockets exist before the driver: they reach it through this box.
        let box = DriverBox()
        let socket = try await MediaSocket.bind(host: configuration.ipv4Address, receiveBufferSize: configuration.receiveBufferSize) {
            box.driver?.received($0, on: .ipv4)
        }
        let ipv6Socket =
            configuration.bindsIPv6
            ? try? await MediaSocket.bind(host: "::", receiveBufferSize: configuration.receiveBufferSize) { box.driver?.received($0, on: .ipv6) }
            : nil
        let driver = ICEAgentDriver(
            configuration: configuration, origin: origin, socket: socket, ipv6Socket: ipv6Socket, logger: logger, events: events)
        box.driver = driver
        await driver.bindInitialNetworks()
        return driver
    }

    private init(
        configuration: ICEAgentDriverConfiguration, origin: ContinuousClock.Instant, socket: MediaSocket, ipv6Socket: MediaSocket?,
        logger: Logger, events: @escaping @Sendable (Event) -> Void
    ) {
        self.configuration = configuration
        self.origin = origin
        self.socket = socket
        self.ipv6Socket = ipv6Socket
        self.logger = logger
        let agent = ICEAgent(configuration: configuration.agent)
        localUfrag = agent.localUfrag
        state = Mutex(State(agent: agent))
        deliver = events
        (work, workContinuation) = AsyncStream<Work>.makeStream()
    }

    /// The IPv4 socket's event loop, where the agent's timer runs: a ``MediaSession`` that paces
    /// its frames here writes them without a hop.
    public var eventLoop: any EventLoop { socket.channel.eventLoop }

    /// The agent's time of an instant: seconds since ``origin``.
    public func seconds(_ instant: ContinuousClock.Instant) -> Double {
        (instant - origin).inSeconds
    }

    /// The agent's ICE username fragment (it never changes).
    public let localUfrag: String

    /// The agent's records for a report: candidates, pairs, servers that gave none.
    public func records() -> ICEAgent.Records {
        state.withLock { $0.agent.records }
    }

    /// Reads the agent's state (its phase, its parameters…); runs take what they need from the
    /// events and ``records()`` instead.
    public func withAgent<Result: Sendable>(_ body: (borrowing ICEAgent) -> Result) -> Result {
        state.withLock { body($0.agent) }
    }

    /// Resolves and connects the agent's servers until ``close()`` (or the task is cancelled).
    /// Datagrams and the timer need no task: they run on the sockets' event loop.
    public func run() async {
        await withDiscardingTaskGroup { group in
            for await item in work {
                switch item {
                case .resolve(let id, let host, let port):
                    group.addTask {
                        // getaddrinfo blocks: here, not under the agent's lock.
                        let address = (try? SocketAddress.makeAddressResolvingHost(host, port: port)).flatMap { TransportAddress($0) }
                        self.update { $0.serverResolved(id, address: address, now: self.seconds(.now)) }
                    }
                case .connect(let id, let address, let url):
                    group.addTask { await self.connectStream(id, address: address, url: url) }
                }
            }
            group.cancelAll()
        }
    }

    /// Starts gathering from the host's interfaces and `servers`.
    public func gather(servers: [ICEServer]) {
        var sockets: [ICEAgent.Socket: TransportAddress] = [:]
        if let local = socket.localAddress.flatMap({ TransportAddress($0) }) { sockets[.ipv4] = local }
        if let local = ipv6Socket?.localAddress.flatMap({ TransportAddress($0) }) { sockets[.ipv6] = local }
        // Each network's own sockets (bound at the start); the wildcard's addresses without them.
        let initial = networkSockets.withLock { $0.initial }
        let hosts = initial.hosts.isEmpty
            ? HostInterfaces.enumerate(
                loopback: configuration.offersLoopback, includesIPv6: ipv6Socket != nil, overrides: configuration.networkTypeOverrides) : initial.hosts
        sockets.merge(initial.bound) { first, _ in first }
        update { $0.gather(hosts: hosts, sockets: sockets, servers: servers, now: self.seconds(.now)) }
    }

    /// Starts checking against the remote candidates.
    /// - Throws: what ``ICEAgent/connect(remote:now:)`` throws.
    public func connect(remote: ICEParameters) throws(PreflightError) {
        try tryUpdate { agent throws(PreflightError) in try agent.connect(remote: remote, now: self.seconds(.now)) }
    }

    /// Hands the media over the selected pair to `receiver` from now on, on the socket's event
    /// loop in arrival order (it must not block), instead of delivering it as ``Event/media(_:)``:
    /// no task hop per datagram.
    public func receiveMedia(_ receiver: @escaping @Sendable (Datagram) -> Void) {
        state.withLock { $0.mediaReceiver = receiver }
    }

    /// Sends media over the selected pair; nothing before one is selected or after the end.
    /// - Returns: whether it was sent.
    @discardableResult
    public func sendMedia(_ bytes: [UInt8]) -> Bool {
        guard let route = state.withLock({ $0.agent.mediaRoute }), let framed = route.frame(bytes) else { return false }
        send(framed, route.transport)
        return true
    }

    /// Sends `count` loss probes on the selected pair, one every `interval`
    /// (``ICEAgent/startLossProbes(count:interval:now:)``).
    public func startLossProbes(count: Int, interval: Duration) {
        update { $0.startLossProbes(count: count, interval: interval.inSeconds, now: self.seconds(.now)) }
    }

    /// The loss probes' fates so far.
    public func lossProbeFates() -> ProbeFates {
        state.withLock { $0.agent.lossProbeFates }
    }

    /// From now on silence from the remote side does not disconnect (the media ended).
    public func stopWatchingLiveness() {
        update { $0.stopWatchingLiveness() }
    }

    /// Deletes the TURN allocations, closes the connections and sockets; no event follows.
    public func close() async {
        // The agent deletes its allocations and closes its stream connections (`closeStream`).
        update { $0.close(now: self.seconds(.now)) }
        state.withLock { state in
            state.closed = true
            state.outbox.removeAll()
            state.timer?.task.cancel()
            state.timer = nil
        }
        workContinuation.finish()
        await socket.close()
        await ipv6Socket?.close()
        for entry in networkSockets.withLock({ $0.removeAll() }) { await entry.socket.close() }
    }
}

/// How the sockets, bound before their driver exists, reach it: weakly, so that a driver nobody
/// holds goes away with its sockets.
final class DriverBox: Sendable {
    private let reference = Mutex<Weak>(Weak())

    struct Weak: Sendable {
        weak var driver: ICEAgentDriver?
    }

    var driver: ICEAgentDriver? {
        get { reference.withLock { $0.driver } }
        set { reference.withLock { $0.driver = newValue } }
    }
}

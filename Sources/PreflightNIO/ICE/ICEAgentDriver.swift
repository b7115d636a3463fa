import Logging
import NIOCore
import NIOSSL
import PreflightCore
import Synchronization

/// Moves an ``ICEAgent``'s bytes: binds its UDP sockets, resolves and connects its servers,
/// feeds it what arrives and the time, sends what it asks, and delivers its events and the
/// media over the selected pair on ``events``. The agent's logic is all in ``ICEAgent``; this is
/// the thin NIO part.
///
/// Start ``run()`` in a task, then ``gather(servers:)``, and once the remote candidates are known
/// ``connect(remote:)``. ``close()`` ends it. Events and media go straight to the `events`
/// function given to ``bind(configuration:origin:logger:events:)``, in order and one at a time,
/// so that its owner can put them in one queue with its other inputs (no extra hop that timers
/// could overtake).
public final class ICEAgentDriver: Sendable {
    /// What the driver reports, in the order it happened.
    public enum Event: Sendable {
        /// Something the agent reported.
        case agent(ICEAgent.Event)
        /// RTP or RTCP that came over the selected pair, stamped with its arrival.
        case media(Datagram)
    }

    /// The configuration it was made with.
    public let configuration: ICEAgentDriverConfiguration
    /// Time 0 of the agent's clock.
    public let origin: ContinuousClock.Instant
    let deliver: @Sendable (Event) -> Void
    let agent: Mutex<ICEAgent>
    let socket: MediaSocket
    let ipv6Socket: MediaSocket?
    let streams = Mutex<[ICEAgent.ServerID: TURNStreamConnection]>([:])
    let work: AsyncStream<Work>
    let workContinuation: AsyncStream<Work>.Continuation
    let logger: Logger

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
        let socket = try await MediaSocket.bind(host: configuration.ipv4Address, receiveBufferSize: configuration.receiveBufferSize)
        let ipv6Socket =
            configuration.bindsIPv6 ? try? await MediaSocket.bind(host: "::", receiveBufferSize: configuration.receiveBufferSize) : nil
        return ICEAgentDriver(
            configuration: configuration, origin: origin, socket: socket, ipv6Socket: ipv6Socket, logger: logger, events: events)
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
        agent = Mutex(ICEAgent(configuration: configuration.agent))
        deliver = events
        (work, workContinuation) = AsyncStream<Work>.makeStream()
    }

    /// The agent's time of an instant: seconds since ``origin``.
    public func seconds(_ instant: ContinuousClock.Instant) -> Double {
        (instant - origin).inSeconds
    }

    /// Reads the agent's state (its records for a report, its phase…).
    public func withAgent<Result: Sendable>(_ body: (borrowing ICEAgent) -> Result) -> Result {
        agent.withLock { body($0) }
    }

    /// Receives, ticks and connects until ``close()`` (or the task is cancelled).
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await datagram in self.socket.datagrams { self.received(datagram, on: .ipv4) }
            }
            if let ipv6Socket {
                group.addTask {
                    for await datagram in ipv6Socket.datagrams { self.received(datagram, on: .ipv6) }
                }
            }
            group.addTask { await self.tick() }
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
        let hosts = HostInterfaces.enumerate(loopback: configuration.offersLoopback, includesIPv6: ipv6Socket != nil)
        update { $0.gather(hosts: hosts, sockets: sockets, servers: servers, now: self.seconds(.now)) }
    }

    /// Starts checking against the remote candidates.
    /// - Throws: what ``ICEAgent/connect(remote:now:)`` throws.
    public func connect(remote: ICEParameters) throws(PreflightError) {
        try tryUpdate { agent throws(PreflightError) in try agent.connect(remote: remote, now: self.seconds(.now)) }
    }

    /// Sends media over the selected pair; nothing before one is selected or after the end.
    /// - Returns: whether it was sent.
    @discardableResult
    public func sendMedia(_ bytes: [UInt8]) -> Bool {
        guard let route = agent.withLock({ $0.mediaRoute }), let framed = route.frame(bytes) else { return false }
        send(framed, route.transport)
        return true
    }

    /// From now on silence from the remote side does not disconnect (the media ended).
    public func stopWatchingLiveness() {
        agent.withLock { $0.stopWatchingLiveness() }
    }

    /// Deletes the TURN allocations, closes the connections and sockets; no event follows.
    public func close() async {
        // The agent deletes its allocations and closes its stream connections (`closeStream`).
        update { $0.close(now: self.seconds(.now)) }
        workContinuation.finish()
        await socket.close()
        await ipv6Socket?.close()
    }
}

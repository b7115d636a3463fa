import NIOCore
import NIOPosix
import PreflightCore
import Synchronization

/// A UDP relay between one client and a target that impairs each direction (delay, jitter, random
/// and bursty loss, duplication, reordering), seeded so that a run repeats, and logs what it did to
/// every datagram: the ground truth for tests that cannot use the root-only network lab
/// (`scripts/lab`), e.g. on macOS or in an unprivileged CI.
///
/// The client sends to ``address``; the relay forwards to the target from its own socket and sends
/// the target's answers back to the client's last address. Put it in front of an edge by
/// advertising the relay's address and port as the edge's candidate
/// (`EdgeConfiguration.advertisedAddress` / `advertisedMediaPort`).
public final class ImpairmentRelay: Sendable {
    /// The address clients send to.
    public let address: SocketAddress
    private let core: RelayCore

    private init(address: SocketAddress, core: RelayCore) {
        self.address = address
        self.core = core
    }

    /// Starts a relay.
    /// - Parameters:
    ///   - upstream: what happens to datagrams from the client to the target.
    ///   - downstream: what happens to datagrams from the target to the client.
    ///   - seed: the seed of every random decision; the same seed and traffic give the same log.
    ///   - target: where to forward; can be set later with ``setTarget(_:)``.
    ///   - host: the address to bind both sockets to; `"127.0.0.1"` by default.
    ///   - group: the event loop group; the NIO singleton by default.
    public static func start(
        upstream: Impairment = .none, downstream: Impairment = .none, seed: UInt64 = 1, target: SocketAddress? = nil,
        host: String = "127.0.0.1", group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> ImpairmentRelay {
        let loop = group.next()
        let core = RelayCore(upstream: upstream, downstream: downstream, seed: seed, target: target)
        do {
            let front = try await bind(host: host, loop: loop, core: core, direction: .upstream)
            let back: any Channel
            do {
                back = try await bind(host: host, loop: loop, core: core, direction: .downstream)
            } catch {
                try? await front.close()
                throw error
            }
            core.attach(front: front, back: back)
            guard let address = front.localAddress else {
                core.close()
                throw PreflightError(code: .socketBindFailed, message: "relay: the bound socket has no address")
            }
            return ImpairmentRelay(address: address, core: core)
        } catch let error as PreflightError {
            throw error
        } catch {
            throw PreflightError(code: .socketBindFailed, message: "relay: cannot bind UDP on \(host)", underlying: error)
        }
    }

    private static func bind(
        host: String, loop: any EventLoop, core: RelayCore, direction: RelayLogEntry.Direction
    ) async throws -> any Channel {
        try await DatagramBootstrap(group: loop)
            .channelOption(ChannelOptions.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 65536))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RelayHandler(core: core, direction: direction))
                }
            }
            .bind(host: host, port: 0)
            .get()
    }

    /// Sets (or changes) where client datagrams go.
    public func setTarget(_ target: SocketAddress) {
        core.setTarget(target)
    }

    /// What the relay did to every datagram so far, in arrival order.
    public func log() -> [RelayLogEntry] {
        core.log()
    }

    /// Closes both sockets; datagrams still held are not sent.
    public func stop() {
        core.close()
    }

    deinit {
        core.close()
    }
}

/// The relay's shared state: both sockets, the models and the log, behind one lock.
final class RelayCore: Sendable {
    struct State {
        var upstream: ImpairmentModel
        var downstream: ImpairmentModel
        var client: SocketAddress?
        var target: SocketAddress?
        var front: (any Channel)?
        var back: (any Channel)?
        var log: [RelayLogEntry] = []
        var upstreamCount = 0
        var downstreamCount = 0
        var closed = false
    }

    private let state: Mutex<State>
    private let start = NIODeadline.now()

    init(upstream: Impairment, downstream: Impairment, seed: UInt64, target: SocketAddress?) {
        state = Mutex(State(
            upstream: ImpairmentModel(upstream, seed: seed &* 2), downstream: ImpairmentModel(downstream, seed: seed &* 2 &+ 1),
            target: target))
    }

    func attach(front: any Channel, back: any Channel) {
        state.withLock {
            $0.front = front
            $0.back = back
        }
    }

    func setTarget(_ target: SocketAddress) {
        state.withLock { $0.target = target }
    }

    func log() -> [RelayLogEntry] {
        state.withLock { $0.log }
    }

    func close() {
        let channels = state.withLock { state -> [any Channel] in
            state.closed = true
            defer { state.front = nil; state.back = nil }
            return [state.front, state.back].compactMap { $0 }
        }
        for channel in channels { channel.close(promise: nil) }
    }

    /// Decides a datagram's fate, logs it and schedules its copies.
    func received(_ envelope: AddressedEnvelope<ByteBuffer>, direction: RelayLogEntry.Direction, on loop: any EventLoop) {
        let now = NIODeadline.now()
        let arrival = Duration.nanoseconds(Int64(now.uptimeNanoseconds) - Int64(start.uptimeNanoseconds))
        let (kind, sequence) = Self.classify(envelope.data)
        let plan: (channel: any Channel, destination: SocketAddress, releases: [Duration])? = state.withLock { state in
            guard !state.closed else { return nil }
            let channel: (any Channel)?
            let destination: SocketAddress?
            let releases: [Duration]
            let index: Int
            switch direction {
            case .upstream:
                state.client = envelope.remoteAddress
                channel = state.back
                destination = state.target
                releases = state.upstream.decide(arrival: arrival)
                index = state.upstreamCount
                state.upstreamCount += 1
            case .downstream:
                channel = state.front
                destination = state.client
                releases = state.downstream.decide(arrival: arrival)
                index = state.downstreamCount
                state.downstreamCount += 1
            }
            guard let channel, let destination else { return nil }
            state.log.append(RelayLogEntry(
                direction: direction, index: index, kind: kind, rtpSequenceNumber: sequence,
                bytes: envelope.data.readableBytes, arrival: arrival, releases: releases))
            return (channel, destination, releases)
        }
        guard let plan else { return }
        let outgoing = AddressedEnvelope(remoteAddress: plan.destination, data: envelope.data)
        for release in plan.releases {
            let wait = release - arrival
            if wait <= .zero {
                plan.channel.writeAndFlush(outgoing, promise: nil)
            } else {
                let channel = plan.channel
                loop.scheduleTask(in: .nanoseconds(Int64(wait / .nanoseconds(1)))) {
                    channel.writeAndFlush(outgoing, promise: nil)
                }
            }
        }
    }

    /// RFC 7983's first-byte demultiplexing, plus RTCP's payload types (RFC 5761).
    static func classify(_ data: ByteBuffer) -> (RelayLogEntry.Kind, UInt16?) {
        guard let first = data.getInteger(at: data.readerIndex, as: UInt8.self) else { return (.other, nil) }
        switch first {
        case 0...3:
            return (.stun, nil)
        case 128...191:
            guard data.readableBytes >= 12, let second = data.getInteger(at: data.readerIndex + 1, as: UInt8.self) else {
                return (.other, nil)
            }
            if (64...95).contains(second & 0x7F) { return (.rtcp, nil) }
            return (.rtp, data.getInteger(at: data.readerIndex + 2, as: UInt16.self))
        default:
            return (.other, nil)
        }
    }
}

/// Hands each datagram of one socket to the relay's core.
final class RelayHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    let core: RelayCore
    let direction: RelayLogEntry.Direction

    init(core: RelayCore, direction: RelayLogEntry.Direction) {
        self.core = core
        self.direction = direction
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        core.received(Self.unwrapInboundIn(data), direction: direction, on: context.eventLoop)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // ICMP errors (e.g. the client went away) surface here; a relay keeps going, like a network.
    }
}

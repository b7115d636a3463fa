import NIOCore
import NIOPosix
import PreflightCore
import Synchronization

/// The client's UDP media socket: every datagram received is stamped on the event loop and
/// delivered on ``datagrams`` (or, bound with a `receive` function, handed to it on the event
/// loop: no task hop per datagram); ``send(_:to:)`` writes from any task.
///
/// It outlives a send the system refuses: NIO closes a datagram channel on any send error but
/// `EMSGSIZE` and `EHOSTUNREACH`, and a host that lost its network refuses every send with
/// `ENETUNREACH` (a broadcast address without `SO_BROADCAST` with `EACCES`). A socket closed so,
/// not by ``close()``, is bound again on the same address, port and event loop (at most twice a
/// second; what is sent meanwhile is dropped, as UDP may), so a call's sockets still work when a
/// network comes back. When the address is gone for good, it stays closed.
public final class MediaSocket: Sendable {
    /// Datagrams received, in arrival order; finishes when the socket closes. Empty and finished
    /// for a socket bound with a `receive` function.
    public let datagrams: AsyncStream<Datagram>
    /// The bound channel (a new one after the socket was bound again).
    public var channel: any Channel { state.withLock { $0.channel } }

    private struct State: Sendable {
        var channel: any Channel
        var closing = false
        var lastRebind: ContinuousClock.Instant?
    }

    private let state: Mutex<State>
    private let binding: Binding

    /// What binding the socket again needs.
    private struct Binding: Sendable {
        let host: String
        let port: Int
        let receiveBufferSize: Int?
        let interfaceIndex: Int?
        let eventLoop: any EventLoop
        let receiver: Receiver
    }

    private init(channel: any Channel, datagrams: AsyncStream<Datagram>, binding: Binding) {
        state = Mutex(State(channel: channel))
        self.datagrams = datagrams
        self.binding = binding
    }

    /// Binds a UDP socket.
    /// - Parameters:
    ///   - host: the local address, `"0.0.0.0"` (every IPv4 interface) by default.
    ///   - port: the local port, 0 (ephemeral) by default.
    ///   - bufferedDatagrams: how many received datagrams wait for the reader before the oldest are
    ///     dropped (a stalled reader must not grow memory without bound); 4096 by default.
    ///   - receiveBufferSize: the socket's `SO_RCVBUF`, bytes; `nil` (the system's default) by default.
    /// - Throws: ``PreflightError`` `.socketBindFailed` when the socket cannot be bound.
    public static func bind(
        host: String = "0.0.0.0", port: Int = 0, bufferedDatagrams: Int = 4096, receiveBufferSize: Int? = nil,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws(PreflightError) -> MediaSocket {
        let (stream, continuation) = AsyncStream<Datagram>.makeStream(bufferingPolicy: .bufferingNewest(bufferedDatagrams))
        return try await bind(
            host: host, port: port, receiveBufferSize: receiveBufferSize, group: group, stream: stream,
            receiver: Receiver(deliver: { continuation.yield($0) }, finish: { continuation.finish() }))
    }

    /// Binds a UDP socket whose datagrams go to `receive`, called on the socket's event loop in
    /// arrival order (it must not block); ``datagrams`` stays empty.
    /// - Parameters:
    ///   - host: the local address.
    ///   - receiveBufferSize: the socket's `SO_RCVBUF`, bytes; `nil` (the system's default) by default.
    ///   - receive: receives each datagram; nothing after the socket closed.
    /// - Throws: ``PreflightError`` `.socketBindFailed` when the socket cannot be bound.
    ///   - interfaceIndex: the interface unicast datagrams leave by, whatever the routing table
    ///     says (Linux `IP_UNICAST_IF`, Apple `IP_BOUND_IF`; IPv4): a network's own socket sends
    ///     by that network. `nil` (the routing table decides) by default; ignored where the system
    ///     refuses it.
    ///   - rebound: called (on the socket's event loop) each time the socket is bound again after
    ///     a send the system refused: what was sent just before was dropped, and its owner may
    ///     send it again (a network's route can come a moment after its address). `nil` by default.
    public static func bind(
        host: String, receiveBufferSize: Int? = nil, interfaceIndex: Int? = nil,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, rebound: (@Sendable () -> Void)? = nil,
        receive: @escaping @Sendable (Datagram) -> Void
    ) async throws(PreflightError) -> MediaSocket {
        let (stream, continuation) = AsyncStream<Datagram>.makeStream()
        continuation.finish()
        return try await bind(
            host: host, port: 0, receiveBufferSize: receiveBufferSize, interfaceIndex: interfaceIndex, group: group, stream: stream,
            receiver: Receiver(deliver: receive, finish: {}, rebound: rebound))
    }

    private static func bind(
        host: String, port: Int, receiveBufferSize: Int?, interfaceIndex: Int? = nil, group: any EventLoopGroup,
        stream: AsyncStream<Datagram>, receiver: Receiver
    ) async throws(PreflightError) -> MediaSocket {
        let channel: any Channel
        do {
            channel = try await makeChannel(
                host: host, port: port, receiveBufferSize: receiveBufferSize, interfaceIndex: interfaceIndex, group: group,
                receiver: receiver)
        } catch {
            receiver.finish()
            throw PreflightError(code: .socketBindFailed, message: "media: cannot bind UDP on \(host):\(port)", underlying: error)
        }
        let socket = MediaSocket(
            channel: channel, datagrams: stream,
            binding: Binding(
                host: host, port: channel.localAddress?.port ?? port, receiveBufferSize: receiveBufferSize,
                interfaceIndex: interfaceIndex, eventLoop: channel.eventLoop, receiver: receiver))
        receiver.closed.withLock { $0 = { [weak socket] in socket?.channelClosed() ?? receiver.finish() } }
        return socket
    }

    private static func makeChannel(
        host: String, port: Int, receiveBufferSize: Int?, interfaceIndex: Int?, group: any EventLoopGroup, receiver: Receiver
    ) async throws -> any Channel {
        var bootstrap = DatagramBootstrap(group: group)
        if let receiveBufferSize {
            bootstrap = bootstrap.channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(clamping: receiveBufferSize))
        }
        let channel = try await bootstrap
            .channelOption(ChannelOptions.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 2048))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(receiver)
                }
            }
            .bind(host: host, port: port)
            .get()
        if let interfaceIndex, let index = UInt32(exactly: interfaceIndex), !host.contains(":"),
            let options = channel as? any SocketOptionProvider
        {
            // An int of exactly its size (the kernel refuses another length). Refused (an old
            // kernel): the routing table decides, as for any socket.
            #if os(Linux)
                // IP_UNICAST_IF (50): the index in network byte order.
                try? await options.unsafeSetSocketOption(
                    level: .ip, name: NIOBSDSocket.Option(rawValue: 50), value: CInt(bitPattern: index.bigEndian)
                ).get()
            #elseif canImport(Darwin)
                // IP_BOUND_IF (25): the index in host order.
                try? await options.unsafeSetSocketOption(
                    level: .ip, name: NIOBSDSocket.Option(rawValue: 25), value: CInt(bitPattern: index)
                ).get()
            #endif
        }
        return channel
    }

    /// The channel closed: by ``close()`` the socket ends; otherwise (a send the system refused)
    /// it is bound again.
    private func channelClosed() {
        let delay: Duration? = state.withLock { state in
            guard !state.closing else { return nil }
            let now = ContinuousClock.now
            let wait = state.lastRebind.map { max(.zero, .milliseconds(500) - (now - $0)) } ?? .zero
            state.lastRebind = now + wait
            return wait
        }
        guard let delay else {
            binding.receiver.finish()
            return
        }
        let binding = binding
        Task { [weak self] in
            if delay > .zero { try? await Task.sleep(for: delay) }
            guard let self, !self.state.withLock({ $0.closing }) else { return }
            do {
                let channel = try await Self.makeChannel(
                    host: binding.host, port: binding.port, receiveBufferSize: binding.receiveBufferSize,
                    interfaceIndex: binding.interfaceIndex, group: binding.eventLoop, receiver: binding.receiver)
                let stale = self.state.withLock { state -> Bool in
                    if state.closing { return true }
                    state.channel = channel
                    return false
                }
                if stale {
                    try? await channel.close()
                } else if let rebound = binding.receiver.rebound {
                    channel.eventLoop.execute(rebound)
                }
            } catch {
                // The address is gone (its network went): the socket stays closed.
                binding.receiver.finish()
            }
        }
    }

    /// The bound local address.
    public var localAddress: SocketAddress? { channel.localAddress }

    /// Sends one datagram (fire and forget: UDP gives no delivery report anyway).
    public func send(_ bytes: [UInt8], to destination: SocketAddress) {
        channel.writeAndFlush(AddressedEnvelope(remoteAddress: destination, data: ByteBuffer(bytes: bytes)), promise: nil)
    }

    /// Closes the socket; ``datagrams`` finishes.
    public func close() async {
        let channel = state.withLock { state in
            state.closing = true
            return state.channel
        }
        try? await channel.close()
    }

    final class Receiver: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let deliver: @Sendable (Datagram) -> Void
        let finish: @Sendable () -> Void
        /// Told when its channel closes (the socket decides whether it ends).
        let closed = Mutex<(@Sendable () -> Void)?>(nil)
        /// Told when the socket was bound again after a refused send.
        let rebound: (@Sendable () -> Void)?

        init(
            deliver: @escaping @Sendable (Datagram) -> Void, finish: @escaping @Sendable () -> Void, rebound: (@Sendable () -> Void)? = nil
        ) {
            self.deliver = deliver
            self.finish = finish
            self.rebound = rebound
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            deliver(Datagram(data: envelope.data, source: envelope.remoteAddress, arrival: .now))
        }

        func channelInactive(context: ChannelHandlerContext) {
            if let closed = closed.withLock({ $0 }) { closed() } else { finish() }
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            // ICMP port unreachable from an earlier send surfaces here; the socket stays usable.
        }
    }
}

import NIOCore
import NIOPosix
import Synchronization

/// A TCP relay on loopback that forwards each connection to a target and can cut them all at once
/// (both sides see the connection end without a WebSocket close): a signaling connection lost in
/// the network, on demand.
final class TCPRelay: Sendable {
    let server: any Channel
    private let connections = Mutex<[any Channel]>([])
    /// While set, a new connection is accepted and never answered (an edge that hangs).
    private let holding = Atomic<Bool>(false)
    /// Connections accepted while holding.
    let held = Atomic<Int>(0)

    /// The port clients connect to.
    var port: Int { server.localAddress?.port ?? 0 }

    private init(server: any Channel) {
        self.server = server
    }

    /// Listens on an ephemeral loopback port and forwards to `targetPort` on 127.0.0.1.
    static func start(targetPort: Int) async throws -> TCPRelay {
        let box = Mutex<TCPRelay?>(nil)
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { inbound in
                if let relay = box.withLock({ $0 }), relay.holding.load(ordering: .acquiring) {
                    relay.track(inbound)
                    relay.held.add(1, ordering: .releasing)
                    return inbound.eventLoop.makeSucceededVoidFuture()
                }
                let outbound = ClientBootstrap(group: inbound.eventLoop)
                    .channelInitializer { outbound in
                        outbound.eventLoop.makeCompletedFuture {
                            try outbound.pipeline.syncOperations.addHandler(Forwarder(partner: inbound.eventLoop.makeSucceededFuture(inbound)))
                        }
                    }
                    .connect(host: "127.0.0.1", port: targetPort)
                outbound.whenSuccess { channel in box.withLock { $0 }?.track(channel) }
                outbound.whenFailure { _ in inbound.close(promise: nil) }
                box.withLock { $0 }?.track(inbound)
                return inbound.eventLoop.makeCompletedFuture {
                    try inbound.pipeline.syncOperations.addHandler(Forwarder(partner: outbound))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let relay = TCPRelay(server: server)
        box.withLock { $0 = relay }
        return relay
    }

    private func track(_ channel: any Channel) {
        connections.withLock { $0.append(channel) }
    }

    /// From now on, new connections are accepted and never answered.
    func hold() {
        holding.store(true, ordering: .releasing)
    }

    /// Closes every relayed connection, both sides; new connections are still relayed.
    func cut() async {
        let channels = connections.withLock { channels in
            defer { channels.removeAll() }
            return channels
        }
        for channel in channels { try? await channel.close() }
    }

    /// Stops listening: a new connection is refused (nothing listens on the port any more), the
    /// relayed ones go on (a client whose signaling is up when its edge becomes unreachable).
    func stopListening() async {
        try? await server.close()
    }

    /// Stops listening, then cuts everything: in the other order a client that reconnects at once
    /// (a session resume) could still get through between the cut and the close.
    func stop() async {
        try? await server.close()
        await cut()
    }

    /// Writes what one side reads to the other; closes the other when one closes.
    private final class Forwarder: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let partner: EventLoopFuture<any Channel>

        init(partner: EventLoopFuture<any Channel>) {
            self.partner = partner
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = unwrapInboundIn(data)
            partner.whenSuccess { $0.writeAndFlush(bytes, promise: nil) }
        }

        func channelInactive(context: ChannelHandlerContext) {
            partner.whenSuccess { $0.close(promise: nil) }
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}

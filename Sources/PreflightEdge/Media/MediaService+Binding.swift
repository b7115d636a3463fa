import Synchronization
import NIOCore
import NIOPosix

extension MediaService {
    /// Binds a UDP socket and serves it on the event loop: datagrams are handled in the channel
    /// pipeline, without a hop to a task per packet, and replies are flushed once per read burst.
    /// - Returns: the bound channel; close it to stop serving.
    public func bind(host: String, port: Int, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton)
        async throws -> any Channel
    {
        let channel = try await DatagramBootstrap(group: group)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(clamping: configuration.receiveBufferSize))
            .channelOption(.socketOption(.so_sndbuf), value: SocketOptionValue(clamping: configuration.receiveBufferSize))
            .channelOption(ChannelOptions.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 2048))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(MediaChannelHandler(service: self))
                }
            }
            .bind(host: host, port: port)
            .get()
        attach(channel)
        return channel
    }
}

/// Feeds each datagram to the ``MediaService`` and writes its reply.
final class MediaChannelHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    let service: MediaService

    init(service: MediaService) {
        self.service = service
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        service.datagramsReceived.add(1, ordering: .relaxed)
        if let (reply, destination) = service.route(envelope.data, from: envelope.remoteAddress) {
            service.datagramsSent.add(1, ordering: .relaxed)
            context.write(wrapOutboundOut(AddressedEnvelope(remoteAddress: destination, data: reply)), promise: nil)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A UDP socket reports ICMP errors of earlier sends (port unreachable) here; they concern
        // one peer, not the service, so the channel stays open.
    }
}

import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension MediaService {
    /// Binds a UDP socket and serves it on the event loop: datagrams are handled in the channel
    /// pipeline, without a hop to a task per packet, and replies are flushed once per read burst.
    /// With ``Configuration/threads`` above 1, binds that many sockets to the same port with
    /// `SO_REUSEPORT`, each on the group's next event loop.
    /// - Returns: the first bound channel; closing it closes the others.
    public func bind(host: String, port: Int, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton)
        async throws -> any Channel
    {
        let first = try await bindSocket(host: host, port: port, group: group)
        attach(first)
        guard configuration.threads > 1, let boundPort = first.localAddress?.port else { return first }
        var bound: [any Channel] = []
        do {
            for _ in 1..<configuration.threads {
                bound.append(try await bindSocket(host: host, port: boundPort, group: group))
            }
        } catch {
            for channel in bound { channel.close(promise: nil) }
            first.close(promise: nil)
            throw error
        }
        // One lifetime: the server closes the first channel; the others follow it.
        let others = bound
        first.closeFuture.whenComplete { _ in
            for channel in others { channel.close(promise: nil) }
        }
        return first
    }

    private func bindSocket(host: String, port: Int, group: any EventLoopGroup) async throws -> any Channel {
        let perRead = configuration.datagramsPerRead
        var bootstrap = DatagramBootstrap(group: group.next())
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(clamping: configuration.receiveBufferSize))
            .channelOption(.socketOption(.so_sndbuf), value: SocketOptionValue(clamping: configuration.receiveBufferSize))
            // Vector reads slice one buffer into `perRead` datagrams of up to 2 KiB each.
            .channelOption(ChannelOptions.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 2048 * perRead))
        if perRead > 1 {
            bootstrap = bootstrap.channelOption(ChannelOptions.datagramVectorReadMessageCount, value: perRead)
        }
        if configuration.threads > 1 {
            bootstrap = bootstrap.channelOption(
                ChannelOptions.Types.SocketOption(level: .socket, name: NIOBSDSocket.Option(rawValue: SO_REUSEPORT)), value: 1)
        }
        return try await bootstrap
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(MediaChannelHandler(service: self, allocator: channel.allocator))
                }
            }
            .bind(host: host, port: port)
            .get()
    }
}

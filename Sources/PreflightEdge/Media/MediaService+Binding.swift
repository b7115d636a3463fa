import CMediaBatch
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension MediaService {
    /// Binds the UDP media port and serves it as ``Configuration/io`` says: each socket on a
    /// thread of its own (`recvmmsg`/`sendmmsg`, Linux) or as a channel on an event loop of
    /// `group` (datagrams handled in the pipeline, replies flushed once per read burst). With
    /// ``Configuration/threads`` above 1, binds that many sockets to the same port with
    /// `SO_REUSEPORT`.
    /// - Returns: the bound port; ``MediaEndpoint/close()`` stops serving it.
    public func bind(host: String, port: Int, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton)
        async throws -> MediaEndpoint
    {
        #if os(Linux)
        if configuration.io == .dedicatedThreads {
            return try bindThreads(host: host, port: port)
        }
        #endif
        return try await bindChannels(host: host, port: port, group: group)
    }

    #if os(Linux)
    private func bindThreads(host: String, port: Int) throws -> MediaEndpoint {
        // `threads` is a public var: clamped again here, so 0 cannot leave a port unserved.
        let count = max(1, min(configuration.threads, 64))
        let (bufferSize, batch) = (configuration.receiveBufferSize, configuration.datagramsPerRead)
        let first = try DedicatedMediaSocket.bind(host: host, port: port, reusePort: count > 1, bufferSize: bufferSize, batch: batch)
        var sockets = [first]
        do {
            for _ in 1..<count {
                sockets.append(try DedicatedMediaSocket.bind(
                    host: host, port: first.localAddress.port ?? port, reusePort: true, bufferSize: bufferSize, batch: batch))
            }
        } catch {
            for socket in sockets { socket.close() }
            throw error
        }
        let pool = NIOThreadPool(numberOfThreads: sockets.count)
        pool.start()
        for socket in sockets {
            pool.submit { [self] state in
                guard case .active = state else { return }
                socket.run(service: self)
            }
        }
        attach(.socket(first))
        return MediaEndpoint(localAddress: first.localAddress, serving: .threads(sockets, pool))
    }
    #endif

    private func bindChannels(host: String, port: Int, group: any EventLoopGroup) async throws -> MediaEndpoint {
        let first = try await bindSocket(host: host, port: port, group: group)
        guard let localAddress = first.localAddress else {
            first.close(promise: nil)
            throw IOError(errnoCode: EINVAL, reason: "the media socket has no local address")
        }
        attach(.channel(first))
        guard configuration.threads > 1, let boundPort = localAddress.port else {
            return MediaEndpoint(localAddress: localAddress, serving: .channels(first: first))
        }
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
        // One lifetime: the endpoint closes the first channel; the others follow it.
        let others = bound
        first.closeFuture.whenComplete { _ in
            for channel in others { channel.close(promise: nil) }
        }
        return MediaEndpoint(localAddress: localAddress, serving: .channels(first: first))
    }

    private func bindSocket(host: String, port: Int, group: any EventLoopGroup) async throws -> any Channel {
        let perRead = configuration.datagramsPerRead
        // No SO_REUSEADDR, as on the media threads: the port is shared only between the
        // service's own sockets (SO_REUSEPORT), never taken over by another one.
        let address = try SocketAddress.makeAddressResolvingHost(host, port: port)
        var bootstrap = DatagramBootstrap(group: group.next())
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
        // Media leaves unfragmented, with DF set: preflight_media_batch.h says why.
        var level: Int32 = 0, name: Int32 = 0, value: Int32 = 0
        if preflight_media_dont_fragment_option(Int32(address.protocol.rawValue), &level, &name, &value) == 0 {
            bootstrap = bootstrap.channelOption(
                ChannelOptions.Types.SocketOption(level: NIOBSDSocket.OptionLevel(rawValue: level), name: NIOBSDSocket.Option(rawValue: name)),
                value: SocketOptionValue(value))
        }
        return try await bootstrap
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(MediaChannelHandler(service: self, allocator: channel.allocator))
                }
            }
            .bind(to: address)
            .get()
    }
}

import NIOCore
import NIOPosix
import NIOSSL
import PreflightCore

/// A connection to a TURN server over TCP or TLS (RFC 8656 §3.1): the stream carries STUN
/// messages and padded ChannelData back to back; each message received is delivered on
/// ``messages`` as one ``Datagram`` from the server, stamped on the event loop.
public final class TURNStreamConnection: Sendable {
    /// Messages received, in order; finishes when the connection closes or its stream breaks.
    public let messages: AsyncStream<Datagram>
    /// The connected channel.
    public let channel: any Channel
    /// The server's address.
    public let server: SocketAddress

    private init(channel: any Channel, server: SocketAddress, messages: AsyncStream<Datagram>) {
        self.channel = channel
        self.server = server
        self.messages = messages
    }

    /// Connects to a TURN server.
    /// - Parameters:
    ///   - server: the server's address.
    ///   - tls: TLS settings for `turns:`, `nil` for plain TCP.
    ///   - serverHostname: the name to send in SNI and verify the certificate against; `nil`
    ///     for an address literal.
    ///   - timeout: how long connecting (and the TLS handshake) may take.
    /// - Throws: ``PreflightError`` `.mediaConnectionFailed` when the connection cannot be made.
    public static func connect(
        to server: SocketAddress, tls: TLSConfiguration?, serverHostname: String?, timeout: Duration,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws(PreflightError) -> TURNStreamConnection {
        let (stream, continuation) = AsyncStream<Datagram>.makeStream(bufferingPolicy: .bufferingNewest(4096))
        do {
            let sslContext = try tls.map { try NIOSSLContext(configuration: $0) }
            let channel = try await ClientBootstrap(group: group)
                .connectTimeout(.nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000))
                .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let sslContext {
                            let handler = try NIOSSLClientHandler(context: sslContext, serverHostname: serverHostname)
                            try channel.pipeline.syncOperations.addHandler(handler)
                        }
                        try channel.pipeline.syncOperations.addHandler(Receiver(server: server, continuation: continuation))
                    }
                }
                .connect(to: server)
                .get()
            return TURNStreamConnection(channel: channel, server: server, messages: stream)
        } catch {
            continuation.finish()
            throw PreflightError(
                code: .mediaConnectionFailed, message: "TURN: cannot connect to \(server) over \(tls == nil ? "TCP" : "TLS"): \(error)",
                underlying: error)
        }
    }

    /// Sends one STUN message or ChannelData message (already padded for a stream).
    public func send(_ bytes: [UInt8]) {
        channel.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil)
    }

    /// Closes the connection; ``messages`` finishes.
    public func close() async {
        try? await channel.close()
    }

    final class Receiver: ChannelInboundHandler, @unchecked Sendable {
        // Touched only on the channel's event loop.
        typealias InboundIn = ByteBuffer
        let server: SocketAddress
        let continuation: AsyncStream<Datagram>.Continuation
        var framer = TURNStreamFramer()

        init(server: SocketAddress, continuation: AsyncStream<Datagram>.Continuation) {
            self.server = server
            self.continuation = continuation
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            let arrival = ContinuousClock.now
            framer.append(buffer.readableBytesView)
            do {
                while let frame = try framer.next() {
                    continuation.yield(Datagram(data: ByteBuffer(bytes: frame), source: server, arrival: arrival))
                }
            } catch {
                // Not TURN: nothing after this can be framed.
                continuation.finish()
                context.close(promise: nil)
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            continuation.finish()
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            continuation.finish()
            context.close(promise: nil)
        }
    }
}

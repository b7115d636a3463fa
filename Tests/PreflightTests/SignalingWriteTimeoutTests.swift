import Crypto
import Foundation
import Logging
import NIOCore
import NIOPosix
import PreflightCore
import PreflightNIO
import Testing

/// A signaling write that the connection never takes (the edge stopped reading, the path stalled)
/// must not hang its caller: the connection closes as lost once the write timeout passes, and
/// `run()` ends with `closed` like any lost connection (a call then resumes its session).
@Suite struct SignalingWriteTimeoutTests {
    /// A WebSocket peer that answers the upgrade and then never reads again, over a socket with a
    /// small receive buffer: the client's writes back up until its writer waits.
    final class StalledPeer: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        private var request = ""

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            request += buffer.readString(length: buffer.readableBytes) ?? ""
            guard request.contains("\r\n\r\n") else { return }
            let key = request.split(separator: "\r\n")
                .first { $0.lowercased().hasPrefix("sec-websocket-key:") }
                .map { $0.dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces) } ?? ""
            let accept = Data(Insecure.SHA1.hash(data: Data((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
            let response = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n"
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: response)), promise: nil)
            // From now on nothing is read: the kernel's buffers fill, then the client's writer waits.
            context.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
        }
    }

    @Test func aWriteTheConnectionNeverTakesClosesItAsLost() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let server = try await ServerBootstrap(group: group)
            .childChannelOption(ChannelOptions.socketOption(.so_rcvbuf), value: 4096)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(StalledPeer()) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(server.localAddress?.port)
        let connection = SignalingConnection(url: "ws://127.0.0.1:\(port)/signaling", writeTimeout: .seconds(1), logger: Logger(label: "test"))
        let runner = Task { await connection.run() }
        var events = connection.events.makeAsyncIterator()
        guard case .connected = await events.next() else {
            Issue.record("the stalled peer's upgrade did not connect")
            return
        }
        // 60 KB messages until one is not taken: a few MB of kernel buffers at most.
        let big = SignalingMessage.hello(token: String(repeating: "a", count: 60_000), client: nil)
        var failure: PreflightError?
        for _ in 0..<2_000 {
            do {
                try await connection.send(big)
            } catch {
                failure = error
                break
            }
        }
        let error = try #require(failure, "every write was taken although the peer never reads")
        #expect(error.code == .signalingDisconnected)
        #expect(error.message.contains("did not complete within"), "\(error.message)")
        // The connection ends as lost, not as closed by this side.
        var closed: PreflightError??
        while let event = await events.next() {
            if case .closed(let why) = event { closed = .some(why) }
        }
        #expect(closed != nil, "run() did not report the connection closed")
        #expect(closed??.code == .signalingDisconnected)
        await runner.value
        try await server.close()
    }
}

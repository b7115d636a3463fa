import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import NIOWebSocket
import PreflightCore
import WSClient
@_spi(WSInternal) import WSCore

/// The signaling WebSocket's client pipeline: TLS for `wss://` (with SNI and certificate name
/// checks for a host name; for an address literal no SNI, RFC 6066 §3, and the certificate must
/// name the connected address), the HTTP/1.1 upgrade, then the WebSocket handler of
/// swift-websocket. The library's own client sends an address literal as SNI, which NIOSSL
/// refuses, so `wss://127.0.0.1:…` could not be verified through it.
struct SignalingClientChannel: ClientConnectionChannel {
    enum UpgradeResult: Sendable {
        case websocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case notUpgraded
    }

    /// The context the data handler gets.
    struct Context: WebSocketContext {
        let logger: Logger
    }

    typealias Value = EventLoopFuture<UpgradeResult>
    typealias Result = WebSocketCloseFrame?

    let url: SignalingURL
    let tls: NIOSSLContext?
    let maximumFrameSize: Int
    let closeTimeout: Duration
    /// Told the channel once it is set up (the same channel carries the WebSocket after the
    /// upgrade), so that its owner can close it: a write that cannot complete, or a close
    /// before the edge answered the upgrade.
    let upgraded: @Sendable (any Channel) -> Void
    let handler: WebSocketDataHandler<Context>

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        upgraded(channel)
        return channel.eventLoop.makeCompletedFuture {
            let upgrader = NIOTypedWebSocketClientUpgrader<UpgradeResult>(
                maxFrameSize: maximumFrameSize,
                upgradePipelineHandler: { channel, _ in
                    upgraded(channel)
                    return channel.eventLoop.makeCompletedFuture {
                        .websocket(try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel))
                    }
                })
            var headers = HTTPHeaders()
            headers.add(name: "Host", value: url.hostHeader)
            let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: url.target, headers: headers)
            let upgrade = NIOTypedHTTPClientUpgradeConfiguration<UpgradeResult>(
                upgradeRequestHead: head, upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in channel.eventLoop.makeSucceededFuture(.notUpgraded) })
            var configuration = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: upgrade)
            configuration.leftOverBytesStrategy = .forwardBytes
            try channel.pipeline.syncOperations.addHandler(CloseOnInputClosedHandler())
            if let tls {
                let handler = try NIOSSLClientHandler(context: tls, serverHostname: url.isAddressLiteral ? nil : url.host)
                try channel.pipeline.syncOperations.addHandler(handler)
            }
            return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: configuration)
        }
    }

    func handle(value: Value, logger: Logger) async throws -> WebSocketCloseFrame? {
        switch try await value.get() {
        case .websocket(let channel):
            return try await WebSocketHandler.handle(
                type: .client,
                configuration: .init(
                    extensions: [], autoPing: .disabled, closeTimeout: closeTimeout, validateUTF8: false,
                    maxFrameSize: maximumFrameSize),
                asyncChannel: channel, context: Context(logger: logger), handler: handler)
        case .notUpgraded:
            throw PreflightError(
                code: .signalingConnectionError, message: "signaling: \(url.hostHeader) refused the WebSocket upgrade")
        }
    }
}

/// Closes the connection when the edge closes its side. The client bootstrap allows half-closed
/// connections, with which an edge that closes without answering the upgrade (a TLS port
/// spoken to in plain text, a refused connection) would leave the upgrade waiting forever.
final class CloseOnInputClosedHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }
}

import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Puts a ``WebSocketKeepaliveHandler`` into a connection's pipeline once it is upgraded to a
/// WebSocket, right after the frame decoder, and then leaves the pipeline.
///
/// It waits at the pipeline's end after Hummingbird's HTTP handlers, where the upgrade's
/// `upgradeComplete` event passes it: the frame codec and the async channel's handler are added
/// after it by then. A connection that stays HTTP keeps it as a pass-through.
final class WebSocketKeepaliveInstaller: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let interval: TimeAmount
    private let logger: Logger

    init(interval: TimeAmount, logger: Logger) {
        self.interval = interval
        self.logger = logger
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .upgradeComplete = event as? HTTPServerUpgradeEvents {
            do {
                let pipeline = context.pipeline.syncOperations
                let decoder = try pipeline.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self)
                try pipeline.addHandler(WebSocketKeepaliveHandler(interval: interval), position: .after(decoder))
            } catch {
                // The pipeline is not a WebSocket's (no frame decoder): nothing to keep alive.
                logger.debug("signaling keepalive not added", metadata: ["error": "\(error)"])
            }
            context.fireUserInboundEventTriggered(event)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}

import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOSSL

/// Hummingbird's HTTP/1.1 + WebSocket child channel with the edge's own handlers in front:
/// ``ConnectionLimitHandler`` first (refusals cost no TLS handshake), then TLS when configured,
/// then ``HTTPTimeoutHandler`` on the plaintext, then Hummingbird's HTTP pipeline; once the
/// connection is a WebSocket, ``WebSocketKeepaliveHandler`` after the frame decoder
/// (``WebSocketKeepaliveInstaller``).
struct EdgeHTTPChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value

    let base: HTTP1WebSocketUpgradeChannel
    let limits: EdgeHTTPLimits
    let limiter: HTTPConnectionLimiter
    let tls: NIOSSLContext?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let pipeline = channel.pipeline.syncOperations
            try pipeline.addHandler(ConnectionLimitHandler(limiter: limiter))
            if let tls {
                try pipeline.addHandler(NIOSSLServerHandler(context: tls))
            }
            try pipeline.addHandler(HTTPTimeoutHandler(limits: limits, limiter: limiter))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }.flatMapThrowing { value in
            // At the end, after Hummingbird's HTTP handlers: see the installer.
            if let interval = limits.webSocketPingInterval {
                try channel.pipeline.syncOperations.addHandler(
                    WebSocketKeepaliveInstaller(interval: HTTPTimeoutHandler.timeAmount(interval), logger: logger))
            }
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: ClosedBeforeRequestLogFilter.filtering(logger))
    }
}

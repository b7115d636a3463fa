import NIOCore

/// The first handler of every accepted connection: admits it through the edge's
/// ``HTTPConnectionLimiter`` (a cap in all and per source address) or closes it at once, before
/// any TLS or HTTP work is spent on it. An admitted connection is released when it closes.
final class ConnectionLimitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private enum State {
        case pending
        case admitted(address: String)
        case refused
        case released
    }

    private let limiter: HTTPConnectionLimiter
    private var state = State.pending

    init(limiter: HTTPConnectionLimiter) {
        self.limiter = limiter
    }

    /// The source address a connection is counted under: its IP address (no port).
    static func key(for channel: any Channel) -> String {
        channel.remoteAddress?.ipAddress ?? "unknown"
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        admit(context: context)
        // A refused connection is closing: the handlers behind this one never see it start.
        guard case .admitted = state else { return }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // A refused connection is closing: what it sent goes nowhere.
        guard case .admitted = state else { return }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        releaseIfAdmitted()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        releaseIfAdmitted()
    }

    private func admit(context: ChannelHandlerContext) {
        guard case .pending = state else { return }
        let address = Self.key(for: context.channel)
        if limiter.admit(address) {
            state = .admitted(address: address)
        } else {
            state = .refused
            context.close(promise: nil)
        }
    }

    private func releaseIfAdmitted() {
        guard case .admitted(let address) = state else { return }
        state = .released
        limiter.release(address)
    }
}

import NIOCore

/// The first handler of every accepted connection: admits it through the edge's
/// ``HTTPConnectionLimiter`` (a cap in all and per source: an IPv4 address, an IPv6 prefix) or
/// closes it at once, before any TLS or HTTP work is spent on it. An admitted connection is
/// released when it closes; one the limiter preempted for a lighter source's newcomer is closed
/// by the limiter, and its release then changes nothing.
final class ConnectionLimitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private enum State {
        case pending
        case admitted(HTTPConnectionLimiter.Ticket)
        case refused
        case released
    }

    private let limiter: HTTPConnectionLimiter
    private var state = State.pending

    init(limiter: HTTPConnectionLimiter) {
        self.limiter = limiter
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
        let source = limiter.source(of: context.channel.remoteAddress)
        if let ticket = limiter.admit(context.channel, from: source) {
            state = .admitted(ticket)
        } else {
            state = .refused
            context.close(promise: nil)
        }
    }

    private func releaseIfAdmitted() {
        guard case .admitted(let ticket) = state else { return }
        state = .released
        limiter.release(ticket)
    }
}

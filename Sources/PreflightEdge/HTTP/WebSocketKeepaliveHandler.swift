import NIOCore
import NIOWebSocket

/// The signaling WebSocket's keepalive (RFC 6455 §5.5.2–5.5.3), in the pipeline right after the
/// frame decoder of an upgraded connection: a ping every `interval`, the first at a random point
/// of the first interval, and the connection closed when a ping is still unanswered at the next.
/// So a client that vanished without a FIN (a phone out of coverage, a NAT that forgot the
/// mapping) is let go within two intervals, and a NAT or proxy on the way sees traffic.
///
/// Why not Hummingbird's own automatic ping: it runs as a task per connection that sleeps one
/// interval from the connection's start, writes through the async channel and reads the pong on
/// the session's reader, and connections opened together (a load test, every client
/// reconnecting after a restart) keep pinging together, every interval, for as long as they
/// live: 8,000 sessions opened within 5 s took 0.7 s of the edge's CPU in a burst every 30 s,
/// about 90 µs a ping, on the core its media thread needs (docs/lab.md). Here a ping is an
/// event-loop timer and one write, the pong that answers it stops here instead of waking the
/// session, and the random first ping spreads connections over the interval: the same 8,000
/// take about 16 ms of CPU each second, evenly.
///
/// Pongs that answer nothing (unsolicited, or an older payload) and the client's own pings go on
/// to the WebSocket handler as before.
final class WebSocketKeepaliveHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let interval: TimeAmount
    private let firstPing: TimeAmount
    private var timer: Scheduled<Void>?
    /// When the last ping was due.
    private var due: NIODeadline?
    /// The payload of the ping not answered yet.
    private var outstanding: ByteBuffer?
    private var stopped = false

    /// - Parameters:
    ///   - interval: between pings, and how long one may go unanswered.
    ///   - firstPing: when the first ping goes, from when the handler is added; a random point of
    ///     the first interval by default.
    init(interval: TimeAmount, firstPing: TimeAmount? = nil) {
        let interval = max(interval, .milliseconds(1))
        self.interval = interval
        self.firstPing = firstPing ?? .nanoseconds(Int64.random(in: 1...interval.nanoseconds))
    }

    /// Pings are due on a grid of 20 ms steps of the loop's clock, so that the pings one event
    /// loop owes within a step go out in one wake-up of its thread (and their pongs come back
    /// together) instead of one wake-up each. A coarser grid saves a little more CPU and makes
    /// longer bursts beside the media thread: 100 ms took 11 ms of CPU a second for 8,000
    /// connections against 16 ms, with the echo's p99 at 0.5–1.0 ms against 0.36–0.57 ms.
    static let step: Int64 = 20_000_000

    /// The first grid point at or after `delay` past `start`.
    static func deadline(after delay: TimeAmount, from start: NIODeadline) -> NIODeadline {
        let target = start.uptimeNanoseconds &+ UInt64(max(delay.nanoseconds, 0))
        let step = UInt64(Self.step)
        let (rounded, overflow) = target.addingReportingOverflow(step - 1)
        return .uptimeNanoseconds(overflow ? target : rounded / step * step)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if timer == nil, due == nil { start(context: context) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        if frame.opcode == .pong, frame.fin, let outstanding, frame.unmaskedData == outstanding {
            self.outstanding = nil
            return
        }
        context.fireChannelRead(data)
    }

    private func stop() {
        stopped = true
        timer?.cancel()
        timer = nil
    }

    private func start(context: ChannelHandlerContext) {
        schedule(context: context, at: Self.deadline(after: firstPing, from: context.eventLoop.now))
    }

    private func schedule(context: ChannelHandlerContext, at deadline: NIODeadline) {
        guard !stopped else { return }
        due = deadline
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            timer = nil
            ping(context: context)
        }
    }

    private func ping(context: ChannelHandlerContext) {
        guard !stopped, context.channel.isActive else { return }
        if outstanding != nil {
            // The last ping went a whole interval unanswered: the client is gone, or too far
            // behind to be a live call's signaling.
            stop()
            context.close(promise: nil)
            return
        }
        // 16 random bytes, as Hummingbird's pings: an old pong cannot answer a new ping.
        var payload = context.channel.allocator.buffer(capacity: 16)
        var random = SystemRandomNumberGenerator()
        payload.writeInteger(random.next() as UInt64)
        payload.writeInteger(random.next() as UInt64)
        outstanding = payload
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .ping, data: payload)), promise: nil)
        schedule(context: context, at: Self.deadline(after: interval, from: due ?? context.eventLoop.now))
    }
}

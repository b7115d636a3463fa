import NIOCore

/// The HTTP listener's timeouts, on the plaintext bytes of a connection (after TLS, before the
/// HTTP decoder), per ``EdgeHTTPLimits``:
///
/// - the header timeout: from the connection's start, or from the first byte of a following
///   request on a kept-alive connection, until the response to that request begins (so a
///   request whose body trickles in, or bytes after a response posing as a new head, cannot
///   hold the connection);
/// - the idle timeout: nothing read or written for that long;
/// - the write-stall timeout: the connection stays unwritable (the client does not read what
///   the edge sends) for ``writeStallTimeout``; this one applies after the upgrade too, so a
///   WebSocket client that floods pings and never reads the pongs cannot hold its connection.
///
/// It also caps a request head at ``EdgeHTTPLimits/maximumHeadLength`` bytes: a head that
/// reaches the cap before it ends is answered `431 Request Header Fields Too Large` and the
/// connection closed, and the rest is never read (an 80 KB `Authorization` header costs 16 KiB of
/// reading, nothing more). It counts the heads it waits for; a request pipelined behind one still
/// being answered is counted by nothing here, but by the HTTP decoder's own 80 KiB limit and the
/// routes' caps on `Authorization` (1 KiB for an API key, 8 KiB for a token, refused unread).
///
/// The handler watches the response heads the server writes: after one a new request may
/// begin, and after `101 Switching Protocols` the connection is a WebSocket and both timeouts
/// are off for good (the signaling session keeps its own). Bytes of a request body are not
/// mistaken for a head while the response to it is pending.
final class HTTPTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    enum Phase: Equatable {
        /// Not started: the connection is not active yet.
        case idle
        /// Between requests on a kept-alive connection: no head has begun.
        case betweenRequests
        /// A request head is arriving; the header timeout runs.
        case readingHead
        /// The head is complete; the response has not begun.
        case awaitingResponse
        /// `101 Switching Protocols` went out: no HTTP timeouts apply.
        case upgraded
        /// Closed by a timeout, or the connection ended.
        case finished
        /// The head was over the cap: the 431 went out, the connection is closing, and nothing
        /// more is read.
        case refused
    }

    private let headerTimeout: TimeAmount
    private let idleTimeout: TimeAmount
    private let limiter: HTTPConnectionLimiter?
    private(set) var phase = Phase.idle
    private var headerTimer: Scheduled<Void>?
    private var stallTimer: Scheduled<Void>?
    /// How long a connection may stay unwritable before it is closed: 10 s.
    static let writeStallTimeout: TimeAmount = .seconds(10)
    private var idleTimer: Scheduled<Void>?
    private var lastActivity = NIODeadline.uptimeNanoseconds(0)
    /// The last four bytes of the head so far, oldest in the high byte, for a `CRLF CRLF` split
    /// across reads.
    private var tail: UInt32 = 0
    /// Bytes of the head read so far.
    private var headLength = 0
    private let maximumHeadLength: Int

    init(limits: EdgeHTTPLimits, limiter: HTTPConnectionLimiter?) {
        headerTimeout = Self.timeAmount(limits.headerTimeout)
        idleTimeout = Self.timeAmount(limits.idleTimeout)
        maximumHeadLength = limits.maximumHeadLength
        self.limiter = limiter
    }

    /// The answer to a head over the cap.
    static let headTooLarge = "HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"

    /// A `Duration` as NIO's `TimeAmount`, clamped to at least one millisecond and at most a day.
    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        let clamped = min(max(seconds, 0), 86_400)
        let nanoseconds = clamped * 1_000_000_000 + (clamped < 86_400 ? attoseconds / 1_000_000_000 : 0)
        return .nanoseconds(max(nanoseconds, 1_000_000))
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
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
        // A refused head's connection is closing: what follows goes nowhere.
        guard phase != .refused else { return }
        if phase != .upgraded, phase != .finished {
            lastActivity = context.eventLoop.now
            let buffer = unwrapInboundIn(data)
            if phase == .betweenRequests, buffer.readableBytes > 0 {
                phase = .readingHead
                tail = 0
                headLength = 0
                armHeaderTimer(context: context)
            }
            if phase == .readingHead {
                let end = headEnd(in: buffer)
                headLength += end ?? buffer.readableBytes
                if headLength > maximumHeadLength {
                    refuseHead(context: context)
                    return
                }
                if end != nil {
                    // The header timer keeps running until the response begins.
                    phase = .awaitingResponse
                }
            }
        }
        context.fireChannelRead(data)
    }

    /// A head over the cap: 431, and the connection closes at once (a client that reads nothing
    /// does not hold it open with an unwritten answer); nothing more is read.
    private func refuseHead(context: ChannelHandlerContext) {
        limiter?.countHeadTooLarge()
        stop()
        phase = .refused
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: Self.headTooLarge)), promise: nil)
        context.close(promise: nil)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if phase != .upgraded, phase != .finished, phase != .refused {
            lastActivity = context.eventLoop.now
            if phase == .readingHead || phase == .awaitingResponse, let status = Self.responseStatus(unwrapOutboundIn(data)) {
                headerTimer?.cancel()
                headerTimer = nil
                if status == 101 {
                    phase = .upgraded
                    idleTimer?.cancel()
                    idleTimer = nil
                } else {
                    phase = .betweenRequests
                }
            }
        }
        context.write(data, promise: promise)
    }

    /// The status code when `buffer` begins with an HTTP/1.x status line, else `nil`.
    static func responseStatus(_ buffer: ByteBuffer) -> Int? {
        let prefix = Array("HTTP/1.".utf8)
        guard buffer.readableBytes >= 12, let bytes = buffer.getBytes(at: buffer.readerIndex, length: 12),
            Array(bytes[0..<7]) == prefix, bytes[8] == UInt8(ascii: " ")
        else { return nil }
        var status = 0
        for byte in bytes[9..<12] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            status = status * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return status
    }

    /// Where in `buffer` the head ends (the bytes up to and including `CRLF CRLF`, or a bare
    /// `LF LF` as lenient parsers accept), counting what earlier reads left in ``tail``; `nil`
    /// when it does not end in `buffer`.
    private func headEnd(in buffer: ByteBuffer) -> Int? {
        var window = tail
        let end = buffer.withUnsafeReadableBytes { bytes -> Int? in
            for (index, byte) in bytes.enumerated() {
                window = window << 8 | UInt32(byte)
                if window == 0x0D0A_0D0A || window & 0xFFFF == 0x0A0A { return index + 1 }
            }
            return nil
        }
        tail = window
        return end
    }

    private func start(context: ChannelHandlerContext) {
        guard phase == .idle else { return }
        phase = .readingHead
        lastActivity = context.eventLoop.now
        armHeaderTimer(context: context)
        armIdleTimer(context: context, deadline: lastActivity + idleTimeout)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            stallTimer?.cancel()
            stallTimer = nil
        } else if stallTimer == nil, phase != .finished {
            stallTimer = context.eventLoop.assumeIsolated().scheduleTask(in: Self.writeStallTimeout) { [self] in
                stallTimer = nil
                guard phase != .finished, !context.channel.isWritable else { return }
                stop()
                context.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    private func stop() {
        phase = .finished
        stallTimer?.cancel()
        stallTimer = nil
        headerTimer?.cancel()
        headerTimer = nil
        idleTimer?.cancel()
        idleTimer = nil
    }

    private func armHeaderTimer(context: ChannelHandlerContext) {
        headerTimer?.cancel()
        headerTimer = context.eventLoop.assumeIsolated().scheduleTask(in: headerTimeout) { [self] in
            guard phase == .readingHead || phase == .awaitingResponse else { return }
            limiter?.countHeaderTimeout()
            stop()
            context.close(promise: nil)
        }
    }

    private func armIdleTimer(context: ChannelHandlerContext, deadline: NIODeadline) {
        idleTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            guard phase != .upgraded, phase != .finished else { return }
            let due = lastActivity + idleTimeout
            if context.eventLoop.now < due {
                armIdleTimer(context: context, deadline: due)
                return
            }
            limiter?.countIdleTimeout()
            stop()
            context.close(promise: nil)
        }
    }
}

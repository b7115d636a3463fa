import NIOCore
import Synchronization

/// Feeds each datagram to the ``MediaService`` and writes its replies: all of a read burst's
/// replies are appended to one buffer and written together at the end of the burst (one
/// `sendmmsg`), so that an echo allocates nothing of its own; the buffer is reused once the
/// socket has taken them.
final class MediaChannelHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    /// Replies held before a burst's end forces them out: bounds the buffer in a long burst.
    static let maximumHeldReplies = 256

    let service: MediaService
    private var arena: ByteBuffer
    private var replies: [(offset: Int, length: Int, destination: SocketAddress)] = []

    init(service: MediaService, allocator: ByteBufferAllocator) {
        self.service = service
        // 32 KiB: a burst of 128 echoes fits, and a buffer still queued when the next burst
        // starts is replaced by one below glibc's 64 KiB free-consolidation threshold.
        arena = allocator.buffer(capacity: 32 << 10)
        replies.reserveCapacity(Self.maximumHeldReplies)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        service.datagramsReceived.add(1, ordering: .relaxed)
        if let (length, destination) = service.route(envelope.data, from: envelope.remoteAddress, appendingTo: &arena) {
            replies.append((arena.writerIndex - length, length, destination))
            if replies.count >= Self.maximumHeldReplies { writeReplies(context: context) }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        writeReplies(context: context)
    }

    private func writeReplies(context: ChannelHandlerContext) {
        guard !replies.isEmpty else { return }
        for reply in replies {
            guard let slice = arena.getSlice(at: reply.offset, length: reply.length) else { continue }
            context.write(wrapOutboundOut(AddressedEnvelope(remoteAddress: reply.destination, data: slice)), promise: nil)
        }
        service.datagramsSent.add(replies.count, ordering: .relaxed)
        replies.removeAll(keepingCapacity: true)
        context.flush()
        // Free again once the socket took every slice (the usual case): no allocation. A slice
        // still queued (a full socket buffer) makes `clear` take fresh storage instead.
        arena.clear()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A UDP socket reports ICMP errors of earlier sends (port unreachable) here; they concern
        // one peer, not the service, so the channel stays open.
    }
}

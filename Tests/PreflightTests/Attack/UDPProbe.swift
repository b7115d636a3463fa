import NIOCore
import NIOPosix
import PreflightCore
import Synchronization

/// A loopback UDP socket that counts every datagram and byte it sends and receives, so that an
/// attack can compare what the edge sent an address with what that address sent the edge.
final class UDPProbe: Sendable {
    struct Tally: Sendable {
        var sentDatagrams = 0
        var sentBytes = 0
        var received: [[UInt8]] = []
        var receivedBytes: Int { received.reduce(0) { $0 + $1.count } }
    }

    let channel: any Channel
    private let tally: Mutex<Tally>
    private let box: TallyBox

    private init(channel: any Channel, box: TallyBox) {
        self.channel = channel
        self.box = box
        self.tally = Mutex(Tally())
    }

    /// Binds `host` (127.0.0.1 by default; any 127/8 address is loopback) on an ephemeral port.
    static func bind(host: String = "127.0.0.1") async throws -> UDPProbe {
        let box = TallyBox()
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(ReceiveCounter(box: box)) }
            }
            .bind(host: host, port: 0).get()
        return UDPProbe(channel: channel, box: box)
    }

    /// Sends one datagram and counts it once the kernel took it.
    func send(_ bytes: [UInt8], to destination: SocketAddress) async throws {
        try await channel.writeAndFlush(AddressedEnvelope(remoteAddress: destination, data: ByteBuffer(bytes: bytes))).get()
        tally.withLock {
            $0.sentDatagrams += 1
            $0.sentBytes += bytes.count
        }
    }

    /// Everything counted so far.
    var counts: Tally {
        var counts = tally.withLock { $0 }
        counts.received = box.received.withLock { $0 }
        return counts
    }

    /// Datagrams received so far.
    var received: [[UInt8]] { box.received.withLock { $0 } }

    /// Waits until at least `count` datagrams arrived or `timeout` passed.
    @discardableResult
    func awaitReceived(_ count: Int, upTo timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while received.count < count {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    func close() async {
        try? await channel.close()
    }
}

private final class TallyBox: Sendable {
    let received = Mutex<[[UInt8]]>([])
}

private final class ReceiveCounter: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    let box: TallyBox

    init(box: TallyBox) { self.box = box }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = Array(unwrapInboundIn(data).data.readableBytesView)
        box.received.withLock { $0.append(bytes) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // ICMP port-unreachable and the like: nothing to count.
    }
}

import NIOCore
import NIOPosix
import PreflightCore
import PreflightTesting
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
    /// - Parameter answering: what the socket answers to a datagram it received (the client's
    ///   side of a consent request, see ``ConsentAnswerer``): the answer goes straight back to
    ///   the datagram's source, and is not counted as sent; `nil` answers nothing.
    static func bind(host: String = "127.0.0.1", answering: (@Sendable ([UInt8]) -> [UInt8]?)? = nil) async throws -> UDPProbe {
        let box = TallyBox()
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ReceiveCounter(box: box, answering: answering))
                }
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
        await awaitReceived(upTo: timeout) { $0.count >= count }
    }

    /// Waits until what arrived so far satisfies `condition` or `timeout` passed.
    @discardableResult
    func awaitReceived(upTo timeout: Duration, until condition: ([[UInt8]]) -> Bool) async -> Bool {
        await eventually(within: timeout, every: .milliseconds(5)) { condition(received) }
    }

    /// Answers sent by the socket's answerer so far.
    var answersSent: Int { box.answers.withLock { $0 } }

    func close() async {
        try? await channel.close()
    }
}

private final class TallyBox: Sendable {
    let received = Mutex<[[UInt8]]>([])
    let answers = Mutex(0)
}

private final class ReceiveCounter: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>
    let box: TallyBox
    let answering: (@Sendable ([UInt8]) -> [UInt8]?)?

    init(box: TallyBox, answering: (@Sendable ([UInt8]) -> [UInt8]?)?) {
        self.box = box
        self.answering = answering
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        let bytes = Array(envelope.data.readableBytesView)
        box.received.withLock { $0.append(bytes) }
        if let answer = answering?(bytes) {
            box.answers.withLock { $0 += 1 }
            context.writeAndFlush(wrapOutboundOut(AddressedEnvelope(remoteAddress: envelope.remoteAddress, data: ByteBuffer(bytes: answer))), promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // ICMP port-unreachable and the like: nothing to count.
    }
}

/// The client's side of the edge's consent requests (RFC 7675), as the SDK's ICE agent answers
/// them: a Binding request with USERNAME `clientUfrag:edgeUfrag` that verifies with the client's
/// password gets a success response signed with it, with the request's CONSENT-NONCE echoed
/// (`echoesNonce` false answers as another ICE agent holding those credentials would: without
/// it); anything else gets nothing.
struct ConsentAnswerer: Sendable {
    let clientUfrag: String
    let clientPassword: String
    let edgeUfrag: String
    var echoesNonce = true

    func answer(_ bytes: [UInt8]) -> [UInt8]? {
        let key = STUNIntegrityKey(Array(clientPassword.utf8))
        guard let request = try? STUNMessage(decoding: bytes), request.type == .bindingRequest,
            request.username == "\(clientUfrag):\(edgeUfrag)", (try? request.verifyIntegrity(key: key)) != nil
        else { return nil }
        let mapped = TransportAddress(ipv4: 127, 0, 0, 1, port: 0)
        var attributes: [STUNAttribute] = [.xorMappedAddress(mapped)]
        if echoesNonce {
            for case .unknown(let type, let value) in request.attributes where type == STUNAttributeType.consentNonce.rawValue {
                attributes.append(.unknown(type: type, value: value))
            }
        }
        return try? STUNMessage(type: .bindingSuccess, transactionID: request.transactionID, attributes: attributes)
            .encoded(integrityKey: key, fingerprint: true)
    }
}

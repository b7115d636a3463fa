import NIOCore
import NIOEmbedded
import PreflightCore
@testable import PreflightNIO
import Testing

/// Records the inbound events that reach the end of a pipeline. Used on one `EmbeddedChannel`'s
/// thread only.
final class InboundEventRecorder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private(set) var inactive = 0
    private(set) var userEvents: [String] = []

    func channelInactive(context: ChannelHandlerContext) {
        inactive += 1
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        userEvents.append("\(event)")
    }
}

/// Every element of a finished stream.
func collect(_ stream: AsyncStream<Datagram>) async -> [Datagram] {
    var all: [Datagram] = []
    for await datagram in stream { all.append(datagram) }
    return all
}

/// PreflightNIO's channel handlers on `EmbeddedChannel`s: the media socket's receiver, the TURN
/// stream connection's framing receiver and the signaling client's half-close handler. The
/// channels are driven synchronously on the test's thread (EmbeddedEventLoop is single-threaded);
/// the delivered streams are read afterwards.
@Suite struct NIOHandlerTests {
    static let peer = try? SocketAddress(ipAddress: "198.18.2.2", port: 40_000)

    // MARK: MediaSocket.Receiver

    /// Runs `drive` on a channel with a media receiver and returns what the receiver delivered
    /// once the channel closed, with how many `channelInactive`s passed the receiver.
    static func mediaReceiver(_ drive: (EmbeddedChannel) throws -> Void) throws -> (AsyncStream<Datagram>, inactive: Int) {
        let (stream, continuation) = AsyncStream<Datagram>.makeStream()
        let recorder = InboundEventRecorder()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(MediaSocket.Receiver(deliver: { continuation.yield($0) }, finish: { continuation.finish() }))
        try channel.pipeline.syncOperations.addHandler(recorder)
        try drive(channel)
        return (stream, recorder.inactive)
    }

    @Test func mediaReceiverDeliversEachDatagramWithItsSourceStampedOnArrival() async throws {
        let peer = try #require(Self.peer)
        let before = ContinuousClock.now
        let (stream, inactive) = try Self.mediaReceiver { channel in
            try channel.writeInbound(AddressedEnvelope(remoteAddress: peer, data: ByteBuffer(bytes: [1, 2, 3])))
            try channel.writeInbound(AddressedEnvelope(remoteAddress: peer, data: ByteBuffer(bytes: [4])))
            try channel.close().wait()
        }
        let after = ContinuousClock.now
        let datagrams = await collect(stream)
        #expect(datagrams.map { Array($0.data.readableBytesView) } == [[1, 2, 3], [4]])
        #expect(datagrams.allSatisfy { $0.source == peer })
        #expect(datagrams.allSatisfy { $0.arrival >= before && $0.arrival <= after })
        #expect(zip(datagrams, datagrams.dropFirst()).allSatisfy { $0.arrival <= $1.arrival })
        // Closing finished the stream (the collection ended) and passed channelInactive on.
        #expect(inactive == 1)
    }

    @Test func mediaReceiverKeepsTheSocketAfterAnICMPError() async throws {
        let peer = try #require(Self.peer)
        let (stream, _) = try Self.mediaReceiver { channel in
            try channel.connect(to: peer).wait()
            try channel.writeInbound(AddressedEnvelope(remoteAddress: peer, data: ByteBuffer(bytes: [1])))
            channel.pipeline.fireErrorCaught(IOError(errnoCode: 111, reason: "recvmsg: connection refused"))
            // The error is swallowed (not left for the channel to throw) and the socket stays open.
            try channel.throwIfErrorCaught()
            #expect(channel.isActive)
            try channel.writeInbound(AddressedEnvelope(remoteAddress: peer, data: ByteBuffer(bytes: [2])))
            try channel.close().wait()
        }
        // The stream did not finish at the error: the datagram after it arrived too.
        #expect(await collect(stream).map { Array($0.data.readableBytesView) } == [[1], [2]])
    }

    // MARK: TURNStreamConnection.Receiver

    /// A STUN Binding request and a padded ChannelData message (3 bytes of data, 1 of padding).
    static func messages() throws -> (stun: [UInt8], channelData: [UInt8], padded: [UInt8]) {
        let stun = try STUNMessage(type: .bindingRequest, attributes: [.software("x")]).encoded(fingerprint: true)
        let data = try ChannelData(channelNumber: 0x4001, data: [7, 8, 9][...])
        return (stun, data.encoded(), data.encoded(padded: true))
    }

    /// Runs `drive` on a channel with a TURN stream receiver for server `Self.peer`.
    static func streamReceiver(_ drive: (EmbeddedChannel) throws -> Void) throws -> AsyncStream<Datagram> {
        let peer = try #require(Self.peer)
        let (stream, continuation) = AsyncStream<Datagram>.makeStream()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(TURNStreamConnection.Receiver(server: peer, continuation: continuation))
        try drive(channel)
        return stream
    }

    @Test(arguments: [1, 3, 7, 1000])
    func streamReceiverFramesMessagesWhateverTheReadSizes(chunk: Int) async throws {
        let (stun, channelData, padded) = try Self.messages()
        let bytes = stun + padded + stun
        let stream = try Self.streamReceiver { channel in
            for start in stride(from: 0, to: bytes.count, by: chunk) {
                try channel.writeInbound(ByteBuffer(bytes: bytes[start..<min(start + chunk, bytes.count)]))
            }
            try channel.close().wait()
        }
        let frames = await collect(stream)
        // Each message once, whole, the ChannelData without its padding, all from the server.
        #expect(frames.map { Array($0.data.readableBytesView) } == [stun, channelData, stun])
        #expect(frames.allSatisfy { $0.source == Self.peer })
    }

    @Test func streamReceiverHoldsAnIncompleteMessageUntilItsLastByte() async throws {
        let (stun, _, _) = try Self.messages()
        let stream = try Self.streamReceiver { channel in
            try channel.writeInbound(ByteBuffer(bytes: stun.dropLast()))
            try channel.close().wait()
        }
        #expect(await collect(stream).isEmpty)
    }

    @Test func streamReceiverClosesAStreamThatIsNotTURN() async throws {
        let (stun, _, _) = try Self.messages()
        var stillActive = true
        let stream = try Self.streamReceiver { channel in
            // A STUN message, then bytes whose first bits are 11: neither STUN nor ChannelData.
            try channel.writeInbound(ByteBuffer(bytes: stun + [0xC0, 0, 0, 4, 1, 2, 3, 4] + stun))
            stillActive = channel.isActive
        }
        #expect(!stillActive)
        // What came before the garbage is delivered; nothing after it, and the stream finished.
        #expect(await collect(stream).map { Array($0.data.readableBytesView) } == [stun])
    }

    @Test func streamReceiverFinishesAndClosesOnAnError() async throws {
        var stillActive = true
        let stream = try Self.streamReceiver { channel in
            channel.pipeline.fireErrorCaught(IOError(errnoCode: 104, reason: "read: connection reset"))
            stillActive = channel.isActive
        }
        #expect(!stillActive)
        #expect(await collect(stream).isEmpty)
    }

    // MARK: CloseOnInputClosedHandler

    @Test func signalingClosesWhenTheEdgeClosesItsSide() throws {
        let recorder = InboundEventRecorder()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(CloseOnInputClosedHandler())
        try channel.pipeline.syncOperations.addHandler(recorder)
        try channel.connect(to: try #require(Self.peer)).wait()

        // Another user event passes through and leaves the connection open.
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.outputClosed)
        #expect(channel.isActive)
        #expect(recorder.userEvents.count == 1)

        // The edge's half-close closes the connection, and the event still reaches the pipeline's end.
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(!channel.isActive)
        #expect(recorder.userEvents.count == 2)
        #expect(recorder.inactive == 1)
    }
}

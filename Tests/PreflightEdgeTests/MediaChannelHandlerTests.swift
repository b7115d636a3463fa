import NIOCore
import NIOEmbedded
import PreflightCore
@testable import PreflightEdge
import Testing

/// ``MediaChannelHandler``, the edge's UDP pipeline, on an `EmbeddedChannel`: replies go back to
/// the datagram's source, are flushed once per read burst, and nothing is sent for what the
/// ``MediaService`` does not answer.
@Suite struct MediaChannelHandlerTests {
    static func channel() throws -> (EmbeddedChannel, MediaService) {
        let service = MediaServiceTests.service()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(MediaChannelHandler(service: service, allocator: channel.allocator))
        return (channel, service)
    }

    static func envelope(_ data: ByteBuffer, from source: SocketAddress) -> AddressedEnvelope<ByteBuffer> {
        AddressedEnvelope(remoteAddress: source, data: data)
    }

    @Test func aCheckIsAnsweredToItsSourceAndUnlocksTheEcho() throws {
        let (channel, service) = try Self.channel()
        let (request, check) = try MediaServiceTests.check()
        try channel.writeInbound(Self.envelope(check, from: MediaServiceTests.client))
        let reply = try #require(try channel.readOutbound(as: AddressedEnvelope<ByteBuffer>.self))
        #expect(reply.remoteAddress == MediaServiceTests.client)
        let response = try STUNMessage(decoding: Array(reply.data.readableBytesView))
        #expect(response.type == .bindingSuccess)
        #expect(response.transactionID == request.transactionID)
        #expect(service.isVerified(MediaServiceTests.client))

        // Now the verified address's RTP is echoed, to it.
        try channel.writeInbound(Self.envelope(MediaServiceTests.rtp, from: MediaServiceTests.client))
        let echo = try #require(try channel.readOutbound(as: AddressedEnvelope<ByteBuffer>.self))
        #expect(echo.remoteAddress == MediaServiceTests.client)
        try MediaServiceTests.expectEcho(echo.data, ofSequence: 1, expected: 1, received: 1)
        #expect(try channel.readOutbound(as: AddressedEnvelope<ByteBuffer>.self) == nil)
    }

    @Test func whatTheServiceDoesNotAnswerSendsNothing() throws {
        let (channel, _) = try Self.channel()
        // RTP from an address that passed no check, a check with the wrong password, and noise.
        let (_, wrongPassword) = try MediaServiceTests.check(password: "not-the-password-0123")
        for data in [MediaServiceTests.rtp, wrongPassword, ByteBuffer(bytes: [0xFF, 0x00, 0x01])] {
            try channel.writeInbound(Self.envelope(data, from: MediaServiceTests.client))
        }
        var replies: [AddressedEnvelope<ByteBuffer>] = []
        while let reply = try channel.readOutbound(as: AddressedEnvelope<ByteBuffer>.self) { replies.append(reply) }
        // The bad check gets its 401 (an error answer is not media); RTP and noise get nothing.
        #expect(replies.count == 1)
        #expect(try MediaServiceTests.errorCode(replies.first?.data) == 401)
    }

    @Test func repliesOfABurstAreFlushedOnceAtItsEnd() throws {
        let (channel, _) = try Self.channel()
        let request = STUNMessage(type: .bindingRequest, attributes: [])
        let sources = try (1...3).map { try SocketAddress(ipAddress: "127.0.0.1", port: 50_100 + $0) }
        for source in sources {
            let binding = ByteBuffer(bytes: try request.encoded(fingerprint: true))
            channel.pipeline.fireChannelRead(Self.envelope(binding, from: source))
        }
        // Written but not flushed until the read burst ends.
        #expect(try channel.readOutbound(as: AddressedEnvelope<ByteBuffer>.self) == nil)
        channel.pipeline.fireChannelReadComplete()
        var destinations: [SocketAddress] = []
        while let reply = try channel.readOutbound(as: AddressedEnvelope<ByteBuffer>.self) { destinations.append(reply.remoteAddress) }
        #expect(destinations == sources)
    }

    /// Echoes of one burst share one buffer: each is written whole and apart from the others,
    /// and a burst longer than the held limit goes out in parts, none lost.
    @Test(arguments: [3, MediaChannelHandler.maximumHeldReplies + 5])
    func echoesOfABurstAreEachWhole(count: Int) throws {
        let service = MediaService(configuration: .init(packetsPerSecondPerSource: 1e6, burstPerSource: 1e6))
        service.addSession(MediaServiceTests.credentials)
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(MediaChannelHandler(service: service, allocator: channel.allocator))
        try channel.writeInbound(Self.envelope(try MediaServiceTests.check().1, from: MediaServiceTests.client))
        _ = try channel.readOutbound(as: AddressedEnvelope<ByteBuffer>.self)
        for sequence in 1...count {
            let payload = (0..<160).map { UInt8(truncatingIfNeeded: $0 + sequence) }
            let rtp = try RTPPacket(payloadType: 0, sequenceNumber: UInt16(sequence), timestamp: 160, ssrc: 7, payload: payload[...]).encoded()
            channel.pipeline.fireChannelRead(Self.envelope(ByteBuffer(bytes: rtp), from: MediaServiceTests.client))
        }
        channel.pipeline.fireChannelReadComplete()
        var echoes: [AddressedEnvelope<ByteBuffer>] = []
        while let echo = try channel.readOutbound(as: AddressedEnvelope<ByteBuffer>.self) { echoes.append(echo) }
        #expect(echoes.count == count)
        for (index, echo) in echoes.enumerated() {
            let bytes = Array(echo.data.readableBytesView)
            let packet = try RTPPacket(decoding: bytes)
            #expect(packet.payload == ((0..<160).map { UInt8(truncatingIfNeeded: $0 + index + 1) })[...])
            let report = bytes.withUnsafeBytes { raw in (try? RTPHeader(parsing: raw)).flatMap { MediaExtension.echoReport($0, in: raw) } }
            #expect(report?.originalSequence == UInt16(index + 1))
        }
        #expect(service.counters.packetsEchoed == count)
    }

    @Test func anICMPErrorKeepsTheSocketOpen() throws {
        let (channel, _) = try Self.channel()
        try channel.connect(to: MediaServiceTests.client).wait()
        channel.pipeline.fireErrorCaught(IOError(errnoCode: 111, reason: "recvmsg: connection refused"))
        try channel.throwIfErrorCaught()
        #expect(channel.isActive)
        _ = try channel.finish()
    }
}

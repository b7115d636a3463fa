import NIOCore
import NIOPosix
import PreflightCore
import PreflightEdge
import Testing

@Suite struct MediaServiceTests {
    static let credentials = ICELiteCredentials(localUfrag: "edge", localPassword: "edgepassword0123456789", remoteUfrag: "clnt")
    static let client = try! SocketAddress(ipAddress: "127.0.0.1", port: 50_000)

    static func check(username: String? = "edge:clnt", password: String = credentials.localPassword) throws -> (STUNMessage, ByteBuffer) {
        let request = STUNMessage(
            type: STUNMessageType(method: .binding, class: .request),
            attributes: (username.map { [STUNAttribute.username($0)] } ?? []) + [.priority(1_853_824_767), .iceControlling(1), .useCandidate])
        return (request, ByteBuffer(bytes: try request.encoded(integrityKey: Array(password.utf8), fingerprint: true)))
    }

    static let rtp = ByteBuffer(bytes: try! RTPPacket(payloadType: 0, sequenceNumber: 1, timestamp: 160, ssrc: 7, payload: [0xFF, 0xFF][...]).encoded())

    static func service() -> MediaService {
        let service = MediaService()
        service.addSession(credentials)
        return service
    }

    /// Checks that `echo` reflects the test packet `Self.rtp` (payload 0xFF 0xFF) as a packet of
    /// the edge's own stream with the echo fields.
    static func expectEcho(_ echo: ByteBuffer, ofSequence sequence: UInt16, expected: UInt32, received: UInt32) throws {
        let bytes = Array(echo.readableBytesView)
        let packet = try RTPPacket(decoding: bytes)
        #expect(packet.payload == [0xFF, 0xFF][...])
        #expect(packet.ssrc != 7)
        let report = try #require(bytes.withUnsafeBytes { raw in
            (try? RTPHeader(parsing: raw)).flatMap { MediaExtension.echoReport($0, in: raw) }
        })
        #expect(report.originalSequence == sequence)
        #expect(report.uplink.expected == expected)
        #expect(report.uplink.received == received)
    }

    static func errorCode(_ reply: ByteBuffer?) throws -> Int? {
        let message = try STUNMessage(decoding: Array(try #require(reply).readableBytesView))
        return message.errorCode?.code
    }

    @Test func plainBindingIsAnsweredWithTheReflexiveAddressButUnlocksNothing() throws {
        let service = Self.service()
        let request = STUNMessage(type: .bindingRequest, attributes: [.software("stun-client")])
        let reply = try #require(service.handle(ByteBuffer(bytes: try request.encoded(fingerprint: true)), from: Self.client))
        let response = try STUNMessage(decoding: Array(reply.readableBytesView))
        #expect(response.type == .bindingSuccess)
        #expect(response.transactionID == request.transactionID)
        #expect(response.xorMappedAddress == TransportAddress(ipv4: 127, 0, 0, 1, port: 50_000))
        try response.verifyFingerprint()
        #expect(!service.isVerified(Self.client))
        #expect(service.handle(Self.rtp, from: Self.client) == nil)
        #expect(service.counters.bindingsAnswered == 1)
        #expect(service.counters.checksAnswered == 0)
    }

    @Test func onlyTheNominatingCheckMovesTheSessionsPeer() throws {
        let service = Self.service()
        let other = try SocketAddress(ipAddress: "127.0.0.1", port: 50_001)
        // A nominating check from the client, then a plain (non-nominating) check from another path.
        _ = try #require(service.handle(try Self.check().1, from: Self.client))
        let plain = STUNMessage(
            type: .bindingRequest, attributes: [.username("edge:clnt"), .priority(1), .iceControlling(1)])
        _ = try #require(service.handle(
            ByteBuffer(bytes: try plain.encoded(integrityKey: Array(Self.credentials.localPassword.utf8), fingerprint: true)), from: other))
        #expect(service.isVerified(other))
        #expect(service.peer(localUfrag: "edge") == Self.client)
    }

    @Test func validCheckIsAnsweredAndUnlocksEcho() throws {
        let service = Self.service()
        #expect(service.handle(Self.rtp, from: Self.client) == nil)  // before any check
        #expect(service.counters.droppedUnverified == 1)

        let (request, datagram) = try Self.check()
        let reply = try #require(service.handle(datagram, from: Self.client))
        let response = try STUNMessage(decoding: Array(reply.readableBytesView))
        #expect(response.type == STUNMessageType(method: .binding, class: .successResponse))
        #expect(response.transactionID == request.transactionID)
        #expect(response.xorMappedAddress == TransportAddress(ipv4: 127, 0, 0, 1, port: 50_000))
        try response.verifyIntegrity(key: Array(Self.credentials.localPassword.utf8))
        try response.verifyFingerprint()
        #expect(service.isVerified(Self.client))

        let echo = try #require(service.handle(Self.rtp, from: Self.client))
        try Self.expectEcho(echo, ofSequence: 1, expected: 1, received: 1)
        let other = try SocketAddress(ipAddress: "127.0.0.1", port: 50_001)
        #expect(service.handle(Self.rtp, from: other) == nil)  // another port has not proved anything
        #expect(service.counters.checksAnswered == 1)
        #expect(service.counters.packetsEchoed == 1)
        #expect(service.counters.droppedUnverified == 2)
    }

    @Test func refusedChecks() throws {
        let service = Self.service()
        #expect(try Self.errorCode(service.handle(try Self.check(password: "wrongpassword0123456789").1, from: Self.client)) == 401)
        #expect(try Self.errorCode(service.handle(try Self.check(username: "nobody:clnt").1, from: Self.client)) == 401)
        #expect(try Self.errorCode(service.handle(try Self.check(username: "edge:other").1, from: Self.client)) == 401)
        #expect(try Self.errorCode(service.handle(try Self.check(username: nil).1, from: Self.client)) == 400)
        #expect(service.counters.checksRefused == 4)
        #expect(!service.isVerified(Self.client))
        #expect(service.handle(Self.rtp, from: Self.client) == nil)
    }

    @Test(arguments: [[], [0x00], [0x00, 0x01, 0x00, 0x00], [0x40, 0x00, 0x00, 0x04, 1, 2, 3, 4], [0x17, 0x03, 0x03], Array(repeating: 0xAA, count: 64)] as [[UInt8]])
    func garbageIsDroppedAndCounted(bytes: [UInt8]) {
        let service = Self.service()
        #expect(service.handle(ByteBuffer(bytes: bytes), from: Self.client) == nil)
        #expect(service.counters.droppedMalformed + service.counters.droppedUnverified == 1)
    }

    @Test func corruptedFingerprintIsIgnored() throws {
        let service = Self.service()
        var bytes = Array(try Self.check().1.readableBytesView)
        bytes[bytes.count - 1] ^= 1
        #expect(service.handle(ByteBuffer(bytes: bytes), from: Self.client) == nil)
        #expect(!service.isVerified(Self.client))
    }

    @Test func removedSessionStopsTheEcho() throws {
        let service = Self.service()
        _ = service.handle(try Self.check().1, from: Self.client)
        #expect(service.isVerified(Self.client))
        service.removeSession(localUfrag: "edge")
        #expect(service.handle(Self.rtp, from: Self.client) == nil)
        #expect(try Self.errorCode(service.handle(try Self.check().1, from: Self.client)) == 401)
    }

    @Test func aSessionInAFreedSlotIsNotReachedFromTheAddressOfTheOneBefore() throws {
        let service = Self.service()
        _ = service.handle(try Self.check().1, from: Self.client)
        service.removeSession(localUfrag: "edge")
        // The next session takes the freed slot; the old address was verified for the old one.
        service.addSession(ICELiteCredentials(localUfrag: "next", localPassword: "nextpassword0123456789", remoteUfrag: "clnt"))
        #expect(service.handle(Self.rtp, from: Self.client) == nil)
        #expect(service.statistics(localUfrag: "next")?.received == 0)
        #expect(service.counters.droppedUnverified == 1)
        // The same session added again under its ufrag is reached once checked again.
        service.addSession(Self.credentials)
        _ = service.handle(try Self.check().1, from: Self.client)
        #expect(service.handle(Self.rtp, from: Self.client) != nil)
        #expect(service.statistics(localUfrag: "edge")?.received == 1)
    }

    /// Real UDP sockets on loopback, port 0: a client checks, then gets its RTP echoed.
    @Test func loopbackCheckThenEcho() async throws {
        let service = Self.service()
        typealias Datagrams = NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>
        let group = MultiThreadedEventLoopGroup.singleton
        func bind() async throws -> Datagrams {
            try await DatagramBootstrap(group: group).bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture { try Datagrams(wrappingChannelSynchronously: channel) }
            }
        }
        let server = try await service.bind(host: "127.0.0.1", port: 0)
        let serverAddress = server.localAddress
        let client = try await bind()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await client.executeThenClose { inbound, outbound in
                    var replies = inbound.makeAsyncIterator()
                    let (request, check) = try Self.check()
                    try await outbound.write(AddressedEnvelope(remoteAddress: serverAddress, data: check))
                    let reply = try #require(try await replies.next())
                    let response = try STUNMessage(decoding: Array(reply.data.readableBytesView))
                    #expect(response.transactionID == request.transactionID)
                    #expect(response.xorMappedAddress?.port == UInt16(client.channel.localAddress?.port ?? -1))
                    try await outbound.write(AddressedEnvelope(remoteAddress: serverAddress, data: Self.rtp))
                    let echo = try #require(try await replies.next())
                    try Self.expectEcho(echo.data, ofSequence: 1, expected: 1, received: 1)
                }
            }
            // The client finishes first; then stop the server. A deadline keeps a lost datagram from hanging the test.
            group.addTask {
                try await Task.sleep(for: .seconds(10))
                throw PreflightError(code: .cancelled, message: "loopback test did not finish in 10 s")
            }
            try await group.next()
            group.cancelAll()
            await server.close()
        }
        #expect(service.counters.packetsEchoed == 1)
    }

    @Test func floodFromOneSourceIsRateLimited() throws {
        let service = MediaService(configuration: .init(packetsPerSecondPerSource: 50, burstPerSource: 10))
        service.addSession(Self.credentials)
        _ = service.handle(try Self.check().1, from: Self.client, at: 0)
        // 1000 packets in the same instant: the burst's 9 remaining tokens pass, the rest are dropped.
        let echoed = (0..<1000).filter { _ in service.handle(Self.rtp, from: Self.client, at: 0) != nil }.count
        #expect(echoed == 9)
        #expect(service.counters.droppedRateLimited == 991)
        // One second later the source may send again, at 50 per second.
        let later = (0..<100).filter { index in service.handle(Self.rtp, from: Self.client, at: 1 + Double(index) * 0.01) != nil }.count
        #expect(later >= 50 && later <= 60)
        // Another source is not affected by the first one's flood.
        let other = try SocketAddress(ipAddress: "127.0.0.1", port: 50_002)
        #expect(service.handle(try Self.check().1, from: other, at: 0) != nil)
    }

    @Test func trackedSourcesAreBoundedAndAFloodResetsNobody() throws {
        let service = MediaService(configuration: .init(packetsPerSecondPerSource: 1, burstPerSource: 1, maximumTrackedSources: 100))
        let sending = try SocketAddress(ipAddress: "127.0.0.1", port: 40_000)
        _ = service.handle(Self.rtp, from: sending, at: 0)  // spends its one-datagram burst
        // 1000 spoofed sources in the same instant: 99 more fit the table, the rest share one
        // overflow bucket (one datagram passes), and nothing is cleared.
        for port in 1...1000 {
            _ = service.handle(Self.rtp, from: try SocketAddress(ipAddress: "127.0.0.1", port: port), at: 0)
        }
        #expect(service.counters.droppedUnverified == 101)
        #expect(service.counters.droppedRateLimited == 900)
        // The source that was sending is still limited: its empty bucket was not reset.
        #expect(service.handle(Self.rtp, from: sending, at: 0.1) == nil)
        #expect(service.counters.droppedRateLimited == 901)
    }
}

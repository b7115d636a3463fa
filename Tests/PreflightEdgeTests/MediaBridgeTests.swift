import NIOCore
import PreflightCore
import PreflightEdge
import Testing

/// The bridge of a call between clients: each leg's RTP goes to the other leg's nominated
/// address as a packet of that leg's own stream, within that address's own budget, and an
/// encrypted leg accepts only what authenticates.
@Suite struct MediaBridgeTests {
    static let alice = ICELiteCredentials(localUfrag: "legA", localPassword: "alicepassword0123456789", remoteUfrag: "alic")
    static let bob = ICELiteCredentials(localUfrag: "legB", localPassword: "bobpassword012345678901", remoteUfrag: "bobb")
    static let aliceAddress = try! SocketAddress(ipAddress: "127.0.0.1", port: 51_000)
    static let bobAddress = try! SocketAddress(ipAddress: "127.0.0.1", port: 52_000)

    static func check(_ credentials: ICELiteCredentials, nominate: Bool = true) throws -> ByteBuffer {
        let request = STUNMessage(
            type: .bindingRequest,
            attributes: [.username("\(credentials.localUfrag):\(credentials.remoteUfrag)"), .priority(1), .iceControlling(1)]
                + (nominate ? [.useCandidate] : []))
        return ByteBuffer(bytes: try request.encoded(integrityKey: Array(credentials.localPassword.utf8), fingerprint: true))
    }

    static func rtp(_ sequence: UInt16, ssrc: UInt32, payload: UInt8 = 0x55) throws -> [UInt8] {
        try RTPPacket(payloadType: 0, sequenceNumber: sequence, timestamp: UInt32(sequence) &* 160, ssrc: ssrc,
                      payload: ArraySlice(repeating: payload, count: 160)).encoded()
    }

    @Test func eachLegHearsTheOtherAsTheEdgesOwnStream() throws {
        let service = MediaService()
        try service.addBridgeLeg(Self.alice)
        try service.addBridgeLeg(Self.bob)
        _ = try #require(service.route(try Self.check(Self.alice), from: Self.aliceAddress))
        _ = try #require(service.route(try Self.check(Self.bob), from: Self.bobAddress))
        // Not linked yet (the callee has not answered): dropped.
        #expect(service.route(ByteBuffer(bytes: try Self.rtp(1, ssrc: 1)), from: Self.aliceAddress) == nil)
        #expect(service.counters.droppedUnbridged == 1)
        service.link("legA", "legB")
        // Each STUN answer spent what its check earned; bob's first packet earns him one.
        let (toAlice, aliceDestination) = try #require(service.route(ByteBuffer(bytes: try Self.rtp(1, ssrc: 2)), from: Self.bobAddress))
        #expect(aliceDestination == Self.aliceAddress)
        #expect(try RTPPacket(decoding: Array(toAlice.readableBytesView)).ssrc != 2)
        let (forwarded, destination) = try #require(service.route(ByteBuffer(bytes: try Self.rtp(2, ssrc: 1)), from: Self.aliceAddress))
        #expect(destination == Self.bobAddress)
        let packet = try RTPPacket(decoding: Array(forwarded.readableBytesView))
        #expect(packet.ssrc != 1)
        #expect(packet.payload == ArraySlice(repeating: 0x55, count: 160))
        // Bob's budget is spent: alice's next packet waits for bob to send.
        #expect(service.route(ByteBuffer(bytes: try Self.rtp(3, ssrc: 1)), from: Self.aliceAddress) == nil)
        #expect(service.counters.droppedOverBudget == 1)
        _ = service.route(ByteBuffer(bytes: try Self.rtp(2, ssrc: 2)), from: Self.bobAddress)
        let (next, _) = try #require(service.route(ByteBuffer(bytes: try Self.rtp(4, ssrc: 1)), from: Self.aliceAddress))
        let nextPacket = try RTPPacket(decoding: Array(next.readableBytesView))
        // Gap-free on bob's leg although the edge dropped alice's packet 3: bob's loss is his own leg's.
        #expect(nextPacket.sequenceNumber == packet.sequenceNumber &+ 1)
        #expect(nextPacket.ssrc == packet.ssrc)
        #expect(nextPacket.timestamp &- packet.timestamp == 320)
        service.unlink("legA", "legB")
        #expect(service.route(ByteBuffer(bytes: try Self.rtp(5, ssrc: 1)), from: Self.aliceAddress) == nil)
    }

    /// A leg's client moves to another network (issue: calls that survive a network change): its
    /// new address gets nothing and moves nothing until an authenticated check comes from it;
    /// once verified it may send (make before break) while the other leg's media still goes to
    /// the old address; its nomination moves that media; a forged nomination moves nothing.
    @Test func aLegMovesToANewAddressOnlyByItsNomination() throws {
        let service = MediaService()
        try service.addBridgeLeg(Self.alice)
        try service.addBridgeLeg(Self.bob)
        _ = try #require(service.route(try Self.check(Self.alice), from: Self.aliceAddress))
        _ = try #require(service.route(try Self.check(Self.bob), from: Self.bobAddress))
        service.link("legA", "legB")
        let aliceOnWifi = try SocketAddress(ipAddress: "127.0.0.1", port: 51_001)
        // Bob's packet goes to alice's nominated address (within what alice sent from it: her
        // first packet, dropped for want of bob's budget, earns her one).
        _ = service.route(ByteBuffer(bytes: try Self.rtp(1, ssrc: 1)), from: Self.aliceAddress)
        #expect(try #require(service.route(ByteBuffer(bytes: try Self.rtp(1, ssrc: 2)), from: Self.bobAddress)).1 == Self.aliceAddress)
        // From the new address, before any check: media is dropped, a forged check refused.
        #expect(service.route(ByteBuffer(bytes: try Self.rtp(2, ssrc: 1)), from: aliceOnWifi) == nil)
        let forged = STUNMessage(
            type: .bindingRequest, attributes: [.username("legA:alic"), .priority(1), .iceControlling(1), .useCandidate])
        let refusal = try #require(service.route(
            ByteBuffer(bytes: try forged.encoded(integrityKey: Array("notalicespassword0123456".utf8), fingerprint: true)), from: aliceOnWifi))
        #expect(try STUNMessage(decoding: Array(refusal.0.readableBytesView)).errorCode?.code == 401)
        #expect(service.peer(localUfrag: "legA") == Self.aliceAddress)
        // An ordinary check verifies the new address: it may send, bob's media stays on the old one.
        _ = try #require(service.route(try Self.check(Self.alice, nominate: false), from: aliceOnWifi))
        #expect(service.isVerified(aliceOnWifi))
        #expect(try #require(service.route(ByteBuffer(bytes: try Self.rtp(2, ssrc: 1)), from: aliceOnWifi)).1 == Self.bobAddress)
        _ = service.route(ByteBuffer(bytes: try Self.rtp(3, ssrc: 1)), from: Self.aliceAddress)
        #expect(try #require(service.route(ByteBuffer(bytes: try Self.rtp(2, ssrc: 2)), from: Self.bobAddress)).1 == Self.aliceAddress)
        // The nomination moves bob's media to the new address.
        _ = try #require(service.route(try Self.check(Self.alice), from: aliceOnWifi))
        #expect(service.peer(localUfrag: "legA") == aliceOnWifi)
        #expect(try #require(service.route(ByteBuffer(bytes: try Self.rtp(3, ssrc: 2)), from: Self.bobAddress)).1 == aliceOnWifi)
    }

    @Test func anEncryptedLegTakesOnlyWhatAuthenticatesAndSendsEncrypted() throws {
        let service = MediaService()
        let aliceKey = SRTPKeyingMaterial.random()
        let edgeToAlice = SRTPKeyingMaterial.random()
        let bobKey = SRTPKeyingMaterial.random()
        let edgeToBob = SRTPKeyingMaterial.random()
        try service.addBridgeLeg(Self.alice, srtp: (receive: aliceKey, send: edgeToAlice))
        try service.addBridgeLeg(Self.bob, srtp: (receive: bobKey, send: edgeToBob))
        service.link("legA", "legB")
        _ = try #require(service.route(try Self.check(Self.alice), from: Self.aliceAddress))
        _ = try #require(service.route(try Self.check(Self.bob), from: Self.bobAddress))
        var aliceSends = try SRTPContext(keyingMaterial: aliceKey)
        var bobHears = try SRTPContext(keyingMaterial: edgeToBob)
        var bobSends = try SRTPContext(keyingMaterial: bobKey)
        // Plain RTP on an encrypted leg, a forged tag, a replay: all dropped.
        #expect(service.route(ByteBuffer(bytes: try Self.rtp(1, ssrc: 1)), from: Self.aliceAddress) == nil)
        var forged = try aliceSends.protectRTP(try Self.rtp(2, ssrc: 1))
        forged[forged.count - 1] ^= 1
        #expect(service.route(ByteBuffer(bytes: forged), from: Self.aliceAddress) == nil)
        #expect(service.counters.droppedUndecryptable == 2)
        _ = service.route(ByteBuffer(bytes: try bobSends.protectRTP(try Self.rtp(1, ssrc: 2))), from: Self.bobAddress)
        let genuine = try aliceSends.protectRTP(try Self.rtp(3, ssrc: 1))
        let (forwarded, destination) = try #require(service.route(ByteBuffer(bytes: genuine), from: Self.aliceAddress))
        #expect(destination == Self.bobAddress)
        // On the wire to bob: encrypted (the payload is not the 0x55 bytes), and bob's key opens it.
        let wire = Array(forwarded.readableBytesView)
        #expect(!wire.suffix(176).prefix(160).allSatisfy { $0 == 0x55 })
        let plain = try RTPPacket(decoding: try bobHears.unprotectRTP(wire))
        #expect(plain.payload == ArraySlice(repeating: 0x55, count: 160))
        #expect(service.route(ByteBuffer(bytes: genuine), from: Self.aliceAddress) == nil)
        #expect(service.counters.droppedUndecryptable == 3)
        // Bob's packet went to alice (her plain and forged packets earned her budget), alice's to bob.
        #expect(service.counters.packetsBridged == 2)
    }

    /// The bridge writes each packet in place at the end of the read burst's one buffer
    /// (decrypting into the room after it): every packet of a burst stays whole, whatever comes
    /// after it, and a truncated or forged packet in the middle writes nothing.
    @Test func aBurstOfBridgedPacketsSharesOneBufferIntact() throws {
        let service = MediaService()
        let keys = (0..<4).map { _ in SRTPKeyingMaterial.random() }
        try service.addBridgeLeg(Self.alice, srtp: (receive: keys[0], send: keys[1]))
        try service.addBridgeLeg(Self.bob, srtp: (receive: keys[2], send: keys[3]))
        service.link("legA", "legB")
        _ = try #require(service.route(try Self.check(Self.alice), from: Self.aliceAddress))
        _ = try #require(service.route(try Self.check(Self.bob), from: Self.bobAddress))
        var senders = [try SRTPContext(keyingMaterial: keys[0]), try SRTPContext(keyingMaterial: keys[2])]
        var hearers = [try SRTPContext(keyingMaterial: keys[3]), try SRTPContext(keyingMaterial: keys[1])]
        var arena = ByteBuffer()
        var replies: [(range: Range<Int>, destination: SocketAddress, from: Int, payload: UInt8)] = []
        for round in 0..<20 {
            for side in 0..<2 {
                let payload = UInt8(truncatingIfNeeded: 16 * side + round)
                var packet = try senders[side].protectRTP(try Self.rtp(UInt16(round), ssrc: UInt32(side + 1), payload: payload))
                if round == 7 { packet = Array(packet.prefix(20)) }  // truncated: no room for the tag
                if round == 9 { packet[30] ^= 1 }  // forged
                let before = arena.writerIndex
                if let (length, destination) = service.route(
                    ByteBuffer(bytes: packet), from: side == 0 ? Self.aliceAddress : Self.bobAddress, appendingTo: &arena)
                {
                    #expect(arena.writerIndex == before + length)
                    replies.append((before..<arena.writerIndex, destination, side, payload))
                } else {
                    #expect(arena.writerIndex == before)
                }
            }
        }
        // The first packet of alice's waits for bob's budget; the truncated and forged ones are dropped.
        #expect(replies.count == 2 * 20 - 1 - 4)
        #expect(service.counters.droppedUndecryptable == 4)
        for reply in replies {
            #expect(reply.destination == (reply.from == 0 ? Self.bobAddress : Self.aliceAddress))
            let wire = try #require(arena.getBytes(at: reply.range.lowerBound, length: reply.range.count))
            let plain = try RTPPacket(decoding: try hearers[reply.from].unprotectRTP(wire))
            #expect(plain.payload == ArraySlice(repeating: reply.payload, count: 160))
        }
    }
}

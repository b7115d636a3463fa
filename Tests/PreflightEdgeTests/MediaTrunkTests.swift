import NIOCore
import PreflightCore
import PreflightEdge
import Testing

/// The inter-edge trunk of a call between two edges, on two media services without sockets:
/// hellos until the other edge answers for the call, then each party's media reaches the other
/// through both edges, authenticated with the call's keys, while the other edge consents.
@Suite struct MediaTrunkTests {
    typealias Bridge = MediaBridgeTests
    static let europe = try! SocketAddress(ipAddress: "198.18.0.1", port: 3478)
    static let america = try! SocketAddress(ipAddress: "198.18.1.1", port: 3478)

    /// Two edges, alice's leg on europe and bob's on america, verified and linked to a trunk
    /// leg each with the call's keys and SSRCs.
    static func call() throws -> (europe: MediaService, america: MediaService) {
        let toAmerica = SRTPKeyingMaterial.random()
        let toEurope = SRTPKeyingMaterial.random()
        let europe = MediaService()
        let america = MediaService()
        try europe.addBridgeLeg(Bridge.alice)
        try america.addBridgeLeg(Bridge.bob)
        _ = try #require(europe.route(try Bridge.check(Bridge.alice), from: Bridge.aliceAddress))
        _ = try #require(america.route(try Bridge.check(Bridge.bob), from: Bridge.bobAddress))
        try europe.addTrunkLeg(
            "trunk", peer: Self.america, srtp: (receive: toEurope, send: toAmerica), sendSSRC: 1001, receiveSSRC: 2002, format: .pcmu)
        try america.addTrunkLeg(
            "trunk", peer: Self.europe, srtp: (receive: toAmerica, send: toEurope), sendSSRC: 2002, receiveSSRC: 1001, format: .pcmu)
        europe.link("legA", "trunk")
        america.link("legB", "trunk")
        return (europe, america)
    }

    @Test func mediaCrossesBothEdgesOnceTheyHaveHeardEachOther() throws {
        let (europe, america) = try Self.call()
        // alice speaks first: europe has not heard from america for this call, so it says hello
        // in place of her packet, at most every 100 ms.
        let (hello, helloDestination) = try #require(europe.route(ByteBuffer(bytes: try Bridge.rtp(1, ssrc: 7)), from: Bridge.aliceAddress, at: 0))
        #expect(helloDestination == Self.america)
        #expect(europe.route(ByteBuffer(bytes: try Bridge.rtp(2, ssrc: 7)), from: Bridge.aliceAddress, at: 0.02) == nil)
        #expect(europe.counters.trunkHellosSent == 1)
        // america takes the hello: the call's trunk is proven; bob's packet goes to europe.
        #expect(america.route(hello, from: Self.europe, at: 0.03) == nil)
        #expect(america.counters.trunkControlReceived == 1)
        let (bobsPacket, toEurope) = try #require(america.route(ByteBuffer(bytes: try Bridge.rtp(1, ssrc: 9, payload: 0xB0)), from: Bridge.bobAddress, at: 0.04))
        #expect(toEurope == Self.europe)
        // europe authenticates it with the call's key and hands it to alice as its own stream.
        let (toAlice, aliceDestination) = try #require(europe.route(bobsPacket, from: Self.america, at: 0.05))
        #expect(aliceDestination == Bridge.aliceAddress)
        let heard = try RTPPacket(decoding: Array(toAlice.readableBytesView))
        #expect(heard.payload.allSatisfy { $0 == 0xB0 })
        #expect(heard.ssrc != 9 && heard.ssrc != 2002)
        // Now europe sends alice's media too, and america hands it to bob.
        let (alicesPacket, toAmerica) = try #require(europe.route(ByteBuffer(bytes: try Bridge.rtp(3, ssrc: 7, payload: 0xA0)), from: Bridge.aliceAddress, at: 0.06))
        #expect(toAmerica == Self.america)
        let (toBob, bobDestination) = try #require(america.route(alicesPacket, from: Self.europe, at: 0.07))
        #expect(bobDestination == Bridge.bobAddress)
        #expect(try RTPPacket(decoding: Array(toBob.readableBytesView)).payload.allSatisfy { $0 == 0xA0 })
        #expect(europe.counters.trunkPacketsSent == 1 && america.counters.trunkPacketsSent == 1)

        // A replay of a trunk packet, or one under another key, goes nowhere.
        #expect(america.route(alicesPacket, from: Self.europe, at: 0.08) == nil)
        var forged = Array(alicesPacket.readableBytesView)
        forged[forged.count - 1] ^= 1
        #expect(america.route(ByteBuffer(bytes: forged), from: Self.europe, at: 0.09) == nil)
        #expect(america.counters.droppedUndecryptable == 2)
    }

    /// Both parties speak 50 packets a second over a trunk 20 ms long each way (in virtual
    /// time): after the hellos, every packet of each reaches the other. (A budget that had each
    /// direction pay for the other carried one in four here.)
    @Test func mediaFlowsBothWaysInFullOverALongTrunk() throws {
        let (europe, america) = try Self.call()
        // (time, edge, datagram, from): what arrives where, in time order.
        var queue: [(at: Double, toEurope: Bool, datagram: ByteBuffer, from: SocketAddress)] = []
        for index in 0..<250 {
            let sequence = UInt16(index + 1)
            queue.append((0.02 * Double(index), true, ByteBuffer(bytes: try Bridge.rtp(sequence, ssrc: 7, payload: 0xA0)), Bridge.aliceAddress))
            queue.append((0.02 * Double(index) + 0.007, false, ByteBuffer(bytes: try Bridge.rtp(sequence, ssrc: 9, payload: 0xB0)), Bridge.bobAddress))
        }
        var heardByAlice = 0
        var heardByBob = 0
        while !queue.isEmpty {
            let next = queue.indices.min { queue[$0].at < queue[$1].at }!
            let arrival = queue.remove(at: next)
            let edge = arrival.toEurope ? europe : america
            guard let (datagram, destination) = edge.route(arrival.datagram, from: arrival.from, at: arrival.at) else { continue }
            if destination == Bridge.aliceAddress { heardByAlice += 1 }
            else if destination == Bridge.bobAddress { heardByBob += 1 }
            else { queue.append((arrival.at + 0.02, !arrival.toEurope, datagram, arrival.toEurope ? Self.europe : Self.america)) }
        }
        // Before the other edge answered: a hello in place of a packet, the packets between
        // hellos (100 ms apart) dropped.
        let hellos = europe.counters.trunkHellosSent + america.counters.trunkHellosSent
        let beforeTheAnswer = europe.counters.droppedUnbridged + america.counters.droppedUnbridged
        #expect(hellos >= 1 && hellos + beforeTheAnswer <= 6, "\(hellos) hellos, \(beforeTheAnswer) dropped")
        #expect(heardByBob + heardByAlice + hellos + beforeTheAnswer == 500, "alice heard \(heardByAlice), bob \(heardByBob)")
        #expect(heardByAlice >= 247 && heardByBob >= 247)
        #expect(europe.counters.droppedOverBudget == 0 && america.counters.droppedOverBudget == 0)
    }

    /// The peer's consent lasts 30 s after its last authenticated packet of the call: then
    /// nothing more goes to it, however much the local party sends.
    @Test func anEdgeStopsSendingToAPeerThatFellSilent() throws {
        let (europe, america) = try Self.call()
        let (hello, _) = try #require(europe.route(ByteBuffer(bytes: try Bridge.rtp(1, ssrc: 7)), from: Bridge.aliceAddress, at: 0))
        _ = america.route(hello, from: Self.europe, at: 0.01)
        let (bobs, _) = try #require(america.route(ByteBuffer(bytes: try Bridge.rtp(1, ssrc: 9)), from: Bridge.bobAddress, at: 0.02))
        _ = europe.route(bobs, from: Self.america, at: 0.03)
        // america says nothing more; alice goes on speaking.
        var sent: [Double] = []
        for index in 2...1700 {
            let at = 0.02 * Double(index)
            if europe.route(ByteBuffer(bytes: try Bridge.rtp(UInt16(index), ssrc: 7)), from: Bridge.aliceAddress, at: at) != nil { sent.append(at) }
        }
        #expect(sent.count == 1500, "\(sent.count) sent")
        #expect((sent.last ?? 0) <= 30.03)
        #expect(europe.counters.droppedOverBudget == 1699 - 1500)
    }

    @Test func hellosToAnEdgeThatNeverAnswersStopAtTheirLimit() throws {
        let (europe, _) = try Self.call()
        var hellos = 0
        for sequence in 0..<1000 {
            let alices = ByteBuffer(bytes: try Bridge.rtp(UInt16(sequence), ssrc: 7))
            if europe.route(alices, from: Bridge.aliceAddress, at: 0.02 * Double(sequence)) != nil { hellos += 1 }
        }
        #expect(hellos == 50)
        #expect(europe.counters.trunkHellosSent == 50)
    }

    @Test func anUnknownCallOrAStrangerOnTheTrunkIsDropped() throws {
        let (europe, _) = try Self.call()
        // From america's address, an SSRC of no call: dropped unverified.
        #expect(europe.route(ByteBuffer(bytes: try Bridge.rtp(1, ssrc: 4242)), from: Self.america, at: 0) == nil)
        #expect(europe.counters.droppedUnverified == 1)
        // The right SSRC from another address: not a trunk peer, not verified.
        #expect(europe.route(ByteBuffer(bytes: try Bridge.rtp(1, ssrc: 2002)), from: Bridge.bobAddress, at: 0) == nil)
        #expect(europe.counters.droppedUnverified == 2)
        // A second trunk leg from the same edge with the same SSRC is refused.
        #expect(throws: PreflightError.self) {
            try europe.addTrunkLeg(
                "trunk2", peer: Self.america, srtp: (receive: .random(), send: .random()), sendSSRC: 3, receiveSSRC: 2002, format: .pcmu)
        }
        europe.removeSession(localUfrag: "trunk")
        #expect(europe.trunkLegCount == 0)
    }
}

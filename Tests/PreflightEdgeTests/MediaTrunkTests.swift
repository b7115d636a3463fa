import NIOCore
import PreflightCore
import PreflightEdge
import Testing

/// The inter-edge trunk of a call between two edges, on two media services without sockets:
/// hellos until the other edge answers for the call, then each party's media reaches the other
/// through both edges, authenticated with the call's keys, within the call's budget.
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

    @Test func anEdgeSendsTheOtherNoMoreForACallThanItGotForIt() throws {
        let (europe, america) = try Self.call()
        let (hello, _) = try #require(europe.route(ByteBuffer(bytes: try Bridge.rtp(1, ssrc: 7)), from: Bridge.aliceAddress, at: 0))
        _ = america.route(hello, from: Self.europe, at: 0.01)
        // One hello as long as a packet buys america one packet of bob's, not ten.
        var sent = 0
        for sequence in 1...10 {
            let bobs = ByteBuffer(bytes: try Bridge.rtp(UInt16(sequence), ssrc: 9))
            if america.route(bobs, from: Bridge.bobAddress, at: 0.02 * Double(sequence)) != nil { sent += 1 }
        }
        #expect(sent == 1)
        #expect(america.counters.droppedOverBudget == 9)
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

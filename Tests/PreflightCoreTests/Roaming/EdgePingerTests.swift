import PreflightCore
import Testing

/// Roaming's pinger: only the right edge's answer to a ping counts, once; the lowest median wins.
@Suite struct EdgePingerTests {
    /// The Binding success an edge would send for `ping`.
    static func answer(_ ping: EdgePinger.Ping) throws -> [UInt8] {
        let request = try STUNMessage(decoding: ping.bytes)
        return try STUNMessage(type: .bindingSuccess, transactionID: request.transactionID, attributes: []).encoded(fingerprint: true)
    }

    @Test func mediansAndTheChoice() throws {
        var pinger = EdgePinger(edges: 3, pingsPerEdge: 3)
        // Edge 0 answers in 50 ms, edge 1 in 10–14 ms, edge 2 never.
        for round in 0..<3 {
            let start = Double(round)
            let pings = pinger.nextRound(at: start)
            #expect(pings.map(\.edge) == [0, 1, 2])
            let r1 = pinger.receive(try Self.answer(pings[0]), from: 0, at: start + 0.050)
            #expect(r1)
            let r2 = pinger.receive(try Self.answer(pings[1]), from: 1, at: start + 0.010 + Double(round) * 0.002)
            #expect(r2)
        }
        #expect(pinger.isSendingDone)
        #expect(pinger.nextRound(at: 9).isEmpty)
        #expect(try #require(pinger.medianRTT(0)) == 50.000000000000014 || abs(try #require(pinger.medianRTT(0)) - 50) < 1e-9)
        #expect(abs(try #require(pinger.medianRTT(1)) - 12) < 1e-9)
        #expect(pinger.medianRTT(2) == nil)
        #expect(pinger.sent(2) == 3 && pinger.answered(2) == 0)
        #expect(EdgePinger.choose([pinger.medianRTT(0), pinger.medianRTT(1), pinger.medianRTT(2)]) == 1)
        #expect(EdgePinger.choose([nil, nil]) == nil)
    }

    @Test func answersFromTheWrongEdgeRepeatsAndOtherMessagesDoNotCount() throws {
        var pinger = EdgePinger(edges: 2, pingsPerEdge: 1)
        let pings = pinger.nextRound(at: 0)
        let answer = try Self.answer(pings[0])
        // Edge 1 replaying edge 0's answer: not counted.
        let r3 = pinger.receive(answer, from: 1, at: 0.01)
        #expect(!r3)
        let r4 = pinger.receive(answer, from: 0, at: 0.02)
        #expect(r4)
        // A repeat of the same answer: counted once.
        let r5 = pinger.receive(answer, from: 0, at: 0.03)
        #expect(!r5)
        // The request itself echoed back, garbage, and an error response: not answers.
        let r6 = pinger.receive(pings[1].bytes, from: 1, at: 0.04)
        #expect(!r6)
        let r7 = pinger.receive([0, 1, 2, 3], from: 1, at: 0.04)
        #expect(!r7)
        let request = try STUNMessage(decoding: pings[1].bytes)
        let error = try STUNMessage(type: .bindingError, transactionID: request.transactionID, attributes: []).encoded()
        let r8 = pinger.receive(error, from: 1, at: 0.05)
        #expect(!r8)
        #expect(pinger.answered(0) == 1 && pinger.answered(1) == 0)
        #expect(!pinger.isComplete)
    }
}

import PreflightCore
import Testing

@testable import PreflightEdge

/// Calls between clients on different edges: each edge's machines and router, the edges'
/// messages carried between them as the bus carries them (JSON text, checked on receipt). The
/// caller's edge decides who gets a call, so the first accept wins everywhere.
@Suite struct CrossEdgeCallTests {
    typealias Harness = SessionMachineHarness

    /// A registered device of `identity` on `edge`.
    static func device(_ edge: Harness, _ identity: String) -> MachineUnderTest {
        var session = edge.session()
        session.signIn(Harness.claims(identity))
        session.handle(.message(.register), now: 0)
        return session
    }

    /// alice on `edge` calls `identity`: her machine and the call's sid.
    static func call(from edge: Harness, to identity: String) throws -> (MachineUnderTest, String) {
        var alice = edge.session()
        alice.signIn(Harness.claims("alice"))
        alice.handle(.message(.invite(.init(ice: Harness.clientICE(), codecs: ["PCMU"], params: ["To": "client:\(identity)"]))), now: 1)
        guard case .ringing(let callSid)? = alice.sent.first(where: { if case .ringing = $0 { true } else { false } }) else {
            throw HarnessError("expected ringing, got \(alice.sent)")
        }
        return (alice, callSid)
    }

    static func accept(_ callSid: String) -> SignalingSessionMachine.Input {
        .message(.accept(.init(callSid: callSid, ice: Harness.clientICE(), codecs: ["PCMU"])))
    }

    @Test func aCallerOnOneEdgeReachesACalleeOnAnotherAndEitherMayHangUp() throws {
        let edges = Harness.clustered("europe", "america")
        var bob = Self.device(edges[1], "bob")
        try Harness.pump(edges)
        #expect(edges[0].cluster?.edges(registering: "AC1", identity: "bob") == ["america"])

        var (alice, callSid) = try Self.call(from: edges[0], to: "bob")
        try Harness.pump(edges)
        bob.deliverNotices(now: 1)
        guard case .incoming(let incoming)? = bob.sent.last else {
            Issue.record("expected incoming on the other edge, got \(bob.sent)")
            return
        }
        #expect(incoming.callSid == callSid)
        #expect(incoming.from == "client:alice")

        // bob's accept waits for the caller's edge to decide; then both get their answers.
        bob.handle(Self.accept(callSid), now: 2)
        #expect(bob.lastAnswer == nil)
        #expect(bob.machine.nextDeadline == 2 + SignalingSessionMachine.acceptDecisionWait)
        let carried = try Harness.pump(edges)
        #expect(carried.map(\.kind) == [.accept, .accepted])
        bob.deliverNotices(now: 2)
        alice.deliverNotices(now: 2)
        #expect(bob.lastAnswer?.callSid == callSid)
        #expect(alice.lastAnswer?.callSid == callSid)
        // Each edge links its party's leg to the call's trunk leg toward the other edge.
        #expect(edges.map(\.media.trunkLegCount) == [1, 1])

        // A message each way, then bob hangs up: alice hears it on her edge.
        let hello = SignalingMessage.Message(callSid: callSid, id: "m1", message: .init(content: "hi"))
        alice.handle(.message(.message(hello)), now: 3)
        try Harness.pump(edges)
        bob.deliverNotices(now: 3)
        #expect(bob.sent.last == .message(hello))
        bob.handle(.message(.hangup(.init(callSid: callSid, reason: "bye"))), now: 4)
        try Harness.pump(edges)
        alice.deliverNotices(now: 4)
        #expect(alice.lastHangup?.callSid == callSid)
        #expect(alice.lastHangup?.reason == "bye")
        #expect(edges.allSatisfy { $0.router.callCount == 0 })
        #expect(edges.map(\.media.trunkLegCount) == [0, 0])
    }

    @Test func theFirstAcceptWinsAcrossEdgesAndEveryOtherDeviceStopsRinging() throws {
        let edges = Harness.clustered("europe", "america", "asia")
        var local = Self.device(edges[0], "bob")
        var american = Self.device(edges[1], "bob")
        var asian = Self.device(edges[2], "bob")
        try Harness.pump(edges)
        var (alice, callSid) = try Self.call(from: edges[0], to: "bob")
        try Harness.pump(edges)
        local.deliverNotices(now: 1)
        american.deliverNotices(now: 1)
        asian.deliverNotices(now: 1)
        #expect([local, american, asian].allSatisfy { if case .incoming? = $0.sent.last { true } else { false } })

        // Both remote devices accept; america's reaches the caller's edge first.
        american.handle(Self.accept(callSid), now: 2)
        asian.handle(Self.accept(callSid), now: 2)
        try Harness.pump(edges)
        american.deliverNotices(now: 2)
        asian.deliverNotices(now: 2)
        local.deliverNotices(now: 2)
        alice.deliverNotices(now: 2)
        #expect(american.lastAnswer?.callSid == callSid)
        #expect(asian.lastAnswer == nil)
        #expect(asian.lastHangup?.code == PreflightError.Code.generalCallError.rawValue)
        #expect(local.sent.last == .cancel(.init(callSid: callSid, reason: "answered elsewhere", code: nil)))
        #expect(alice.lastAnswer?.callSid == callSid)
        // The losers go on: still registered, ready for the next call.
        #expect(!asian.machine.isEnded && !local.machine.isEnded)
    }

    @Test func aBusyCalleeOnAnotherEdgeIsTheCallersError() throws {
        let edges = Harness.clustered("europe", "america")
        var bob = Self.device(edges[1], "bob")
        try Harness.pump(edges)
        // bob is in a call on his own edge.
        var carol = edges[1].session()
        carol.signIn(Harness.claims("carol"))
        carol.handle(.message(.invite(.init(ice: Harness.clientICE(), codecs: ["PCMU"], params: ["To": "client:bob"]))), now: 1)
        bob.deliverNotices(now: 1)
        guard case .incoming(let first)? = bob.sent.last else {
            Issue.record("expected carol's call, got \(bob.sent)")
            return
        }
        bob.handle(Self.accept(first.callSid), now: 1)
        var (alice, _) = try Self.call(from: edges[0], to: "bob")
        try Harness.pump(edges)
        alice.deliverNotices(now: 2)
        #expect(alice.lastHangup?.code == PreflightError.Code.calleeBusy.rawValue)
    }

    @Test func theCallersRingTimeoutCancelsTheOtherEdgesDevices() throws {
        let edges = Harness.clustered("europe", "america")
        var bob = Self.device(edges[1], "bob")
        try Harness.pump(edges)
        var (alice, callSid) = try Self.call(from: edges[0], to: "bob")
        try Harness.pump(edges)
        bob.deliverNotices(now: 1)
        alice.poll(now: 1 + Harness.ringTimeout)
        #expect(alice.lastHangup?.code == PreflightError.Code.calleeUnavailable.rawValue)
        try Harness.pump(edges)
        bob.deliverNotices(now: 31)
        guard case .cancel(let cancel)? = bob.sent.last else {
            Issue.record("expected a cancel, got \(bob.sent)")
            return
        }
        #expect(cancel.callSid == callSid)
        #expect(edges.allSatisfy { $0.router.callCount == 0 })
    }

    @Test func anAcceptTheCallersEdgeNeverDecidesEndsWith31005() throws {
        let (edges, _, accepting, _) = try Self.acceptWaitingForItsDecision()
        var bob = accepting
        // The decision is lost (the europe edge's messages never arrive).
        _ = edges[1].cluster?.takeOutgoing()
        bob.poll(now: 2 + SignalingSessionMachine.acceptDecisionWait)
        #expect(bob.lastHangup?.code == PreflightError.Code.connectionError.rawValue)
        #expect(!bob.machine.isEnded)
    }

    /// alice on europe calls bob on america; bob accepts at 2 s: his accept waits for europe's
    /// decision (not carried yet).
    static func acceptWaitingForItsDecision() throws -> (edges: [Harness], alice: MachineUnderTest, bob: MachineUnderTest, callSid: String) {
        let edges = Harness.clustered("europe", "america")
        var bob = Self.device(edges[1], "bob")
        try Harness.pump(edges)
        let (alice, callSid) = try Self.call(from: edges[0], to: "bob")
        try Harness.pump(edges)
        bob.deliverNotices(now: 1)
        bob.handle(Self.accept(callSid), now: 2)
        return (edges, alice, bob, callSid)
    }

    /// The callee's edge starts draining while bob's accept waits for the caller's edge's
    /// decision (the call may be up there already): bob's session goes on, takes the call, and
    /// ends with 70109 when the call does. (Ended at once, it ended alice's call with 31480.)
    @Test func aDrainingEdgeKeepsAnAcceptWaitingForItsDecision() throws {
        let (edges, started, accepting, callSid) = try Self.acceptWaitingForItsDecision()
        var (alice, bob) = (started, accepting)
        bob.handle(.draining(limitReached: false), now: 2.01)
        #expect(!bob.machine.isEnded)
        try Harness.pump(edges)
        bob.deliverNotices(now: 2.05)
        alice.deliverNotices(now: 2.05)
        #expect(bob.lastAnswer?.callSid == callSid)
        #expect(alice.lastAnswer?.callSid == callSid)
        #expect(alice.lastHangup == nil)
        alice.handle(.message(.hangup(.init(callSid: callSid, reason: "bye"))), now: 4)
        try Harness.pump(edges)
        bob.deliverNotices(now: 4)
        #expect(bob.lastHangup?.reason == "bye")
        #expect(bob.lastErrorCode == PreflightError.Code.edgeDraining.rawValue)
        #expect(bob.machine.isEnded)
    }

    /// Draining, an accept whose decision never comes ends the session with the lost call.
    @Test func aDrainingEdgeEndsAnAcceptWhoseDecisionIsLost() throws {
        let (edges, _, accepting, _) = try Self.acceptWaitingForItsDecision()
        var bob = accepting
        bob.handle(.draining(limitReached: false), now: 2.01)
        _ = edges[1].cluster?.takeOutgoing()
        bob.poll(now: 2 + SignalingSessionMachine.acceptDecisionWait)
        #expect(bob.lastHangup?.code == PreflightError.Code.connectionError.rawValue)
        #expect(bob.lastErrorCode == PreflightError.Code.edgeDraining.rawValue)
        #expect(bob.machine.isEnded)
    }

    @Test func anUnregisteredDeviceIsForgottenEverywhere() throws {
        let edges = Harness.clustered("europe", "america")
        var bob = Self.device(edges[1], "bob")
        try Harness.pump(edges)
        bob.handle(.closed(protocolError: false), now: 1)
        try Harness.pump(edges)
        #expect(edges[0].cluster?.edges(registering: "AC1", identity: "bob") == [])
        var alice = edges[0].session()
        alice.signIn(Harness.claims("alice"))
        alice.handle(.message(.invite(.init(ice: Harness.clientICE(), codecs: ["PCMU"], params: ["To": "client:bob"]))), now: 2)
        #expect(alice.lastErrorCode == PreflightError.Code.calleeUnavailable.rawValue)
    }

    @Test func aCallWhoseOtherEdgeDiedEndsWith31005AndARingingOneWith31480() throws {
        let edges = Harness.clustered("europe", "america", "asia")
        var bob = Self.device(edges[1], "bob")
        var carol = Self.device(edges[2], "carol")
        try Harness.pump(edges)
        var (alice, callSid) = try Self.call(from: edges[0], to: "bob")
        try Harness.pump(edges)
        bob.deliverNotices(now: 1)
        bob.handle(Self.accept(callSid), now: 1)
        try Harness.pump(edges)
        alice.deliverNotices(now: 1)
        var (dave, ringing) = try Self.call(from: edges[0], to: "carol")
        try Harness.pump(edges)
        carol.deliverNotices(now: 1)
        #expect(edges[0].media.trunkLegCount == 1)

        edges[0].router.edgesDied(["america", "asia"])
        alice.deliverNotices(now: 9)
        dave.deliverNotices(now: 9)
        #expect(alice.lastHangup?.callSid == callSid)
        #expect(alice.lastHangup?.code == PreflightError.Code.connectionError.rawValue)
        #expect(dave.lastHangup?.callSid == ringing)
        #expect(dave.lastHangup?.code == PreflightError.Code.calleeUnavailable.rawValue)
        #expect(edges[0].media.trunkLegCount == 0)
        #expect(edges[0].router.callCount == 0)
    }

    @Test func messagesNotForThisEdgeOrExpiredAreDroppedAndCounted() throws {
        let edges = Harness.clustered("europe", "america")
        let cluster = try #require(edges[0].cluster)
        var registered = ClusterMessage(.registered, from: "america", to: nil, now: 0, session: "SS1", account: "AC1", identity: "bob")
        cluster.receive(registered, router: edges[0].router, now: 10_001)
        #expect(cluster.counts.expired == 1)
        registered.to = "asia"
        cluster.receive(registered, router: edges[0].router, now: 1)
        let own = ClusterMessage(.registered, from: "europe", to: nil, now: 0, session: "SS2", account: "AC1", identity: "bob")
        cluster.receive(own, router: edges[0].router, now: 1)
        #expect(cluster.counts.refused == 2)
        #expect(cluster.remoteRegistrationCount == 0)
    }
}

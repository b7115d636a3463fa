import PreflightCore
import Testing

@testable import PreflightEdge

/// Calls between clients through two (or three) machines of one edge and its real call router:
/// ringing, accepting, racing devices, the ring timeout, hangups, the call's maximum, a lost
/// party, messages. The router's notices are delivered when the test says, as a session's loop
/// would take them from its queue.
@Suite struct SessionMachineCallTests {
    typealias Harness = SessionMachineHarness

    /// A registered callee `identity`.
    static func callee(_ edge: Harness, _ identity: String) -> MachineUnderTest {
        var session = edge.session()
        session.signIn(Harness.claims(identity))
        session.handle(.message(.register), now: 0)
        return session
    }

    /// alice calls `identity`: her machine and the call's sid.
    static func dial(_ edge: Harness, to identity: String, now: Double = 1) throws -> (MachineUnderTest, String) {
        var caller = edge.session()
        caller.signIn(Harness.claims("alice"))
        caller.handle(.message(.invite(.init(ice: Harness.clientICE(), codecs: ["PCMU"], params: ["To": "client:\(identity)"]))), now: now)
        guard case .ringing(let callSid)? = caller.sent.first(where: { if case .ringing = $0 { true } else { false } }) else {
            throw HarnessError("expected ringing, got \(caller.sent)")
        }
        return (caller, callSid)
    }

    static func accept(_ callSid: String) -> SignalingMessage {
        .accept(.init(callSid: callSid, ice: Harness.clientICE(), codecs: ["PCMU"]))
    }

    /// alice's call to a registered bob, answered: both machines and the call's sid.
    static func connected(_ edge: Harness) throws -> (alice: MachineUnderTest, bob: MachineUnderTest, callSid: String) {
        var bob = callee(edge, "bob")
        var (alice, callSid) = try dial(edge, to: "bob")
        bob.deliverNotices(now: 1)
        bob.handle(.message(accept(callSid)), now: 1)
        alice.deliverNotices(now: 1)
        return (alice, bob, callSid)
    }

    @Test func aCallRingsTheCalleeAndBothPartiesGetTheirAnswer() throws {
        let edge = Harness()
        var bob = Self.callee(edge, "bob")
        var (alice, callSid) = try Self.dial(edge, to: "bob")
        // answerOnBridge is off: the caller's answer comes at once, with the edge's leg.
        #expect(alice.lastAnswer?.callSid == callSid)
        bob.deliverNotices(now: 1)
        guard case .incoming(let incoming)? = bob.sent.last else {
            Issue.record("expected incoming, got \(bob.sent)")
            return
        }
        #expect(incoming.from == "client:alice")
        bob.handle(.message(Self.accept(callSid)), now: 2)
        #expect(bob.lastAnswer?.callSid == callSid)
        alice.deliverNotices(now: 2)
        // Both legs open, no ring timeout left for the caller: only the call's maximum.
        #expect(edge.media.sessionCount == 2)
        #expect(alice.machine.nextDeadline == 1 + edge.configuration.maximumCallDuration.inSeconds)

        // bob hangs up: alice hears it, both legs linger for their checks, then go.
        bob.handle(.message(.hangup(.init(callSid: callSid))), now: 10)
        alice.deliverNotices(now: 10)
        #expect(alice.lastHangup?.callSid == callSid)
        #expect(!alice.machine.isEnded && !bob.machine.isEnded)
        #expect(edge.media.sessionCount == 2)
        #expect(alice.machine.nextDeadline == 10 + SignalingSessionMachine.mediaLinger)
        alice.poll(now: 10 + SignalingSessionMachine.mediaLinger)
        bob.poll(now: 10 + SignalingSessionMachine.mediaLinger)
        #expect(edge.media.sessionCount == 0)
        // Ready again: alice, unregistered, must invite within the signaling timeout.
        #expect(alice.machine.nextDeadline == 10 + edge.configuration.signalingTimeout.inSeconds)
    }

    @Test func theFirstDeviceToAcceptWinsAndTheOtherIsCancelled() throws {
        let edge = Harness()
        var phone = Self.callee(edge, "bob")
        var laptop = Self.callee(edge, "bob")
        var (alice, callSid) = try Self.dial(edge, to: "bob")
        phone.deliverNotices(now: 1)
        laptop.deliverNotices(now: 1)
        laptop.handle(.message(Self.accept(callSid)), now: 2)
        phone.deliverNotices(now: 2)
        #expect(phone.sent.last == .cancel(.init(callSid: callSid, reason: "answered elsewhere", code: nil)))
        // Too late: a hangup with 31000, and the session goes on.
        phone.handle(.message(Self.accept(callSid)), now: 3)
        #expect(phone.lastHangup?.code == PreflightError.Code.generalCallError.rawValue)
        #expect(!phone.machine.isEnded)
        alice.deliverNotices(now: 3)
        #expect(!alice.machine.isEnded)
    }

    @Test func anUnansweredCallStopsRingingAtTheRingTimeout() throws {
        let edge = Harness()
        var bob = Self.callee(edge, "bob")
        var (alice, callSid) = try Self.dial(edge, to: "bob", now: 1)
        bob.deliverNotices(now: 1)
        #expect(alice.machine.nextDeadline == 1 + Harness.ringTimeout)
        alice.poll(now: 1 + Harness.ringTimeout)
        #expect(alice.lastHangup == .init(callSid: callSid, reason: "no answer", code: PreflightError.Code.calleeUnavailable.rawValue))
        bob.deliverNotices(now: 31)
        guard case .cancel(let cancel)? = bob.sent.last else {
            Issue.record("expected a cancel, got \(bob.sent)")
            return
        }
        #expect(cancel.code == PreflightError.Code.calleeUnavailable.rawValue)
    }

    @Test func aCallToNobodyRegisteredIsRefusedWith31480() {
        let edge = Harness()
        var alice = edge.session()
        alice.signIn(Harness.claims("alice"))
        alice.handle(.message(.invite(.init(ice: Harness.clientICE(), codecs: ["PCMU"], params: ["To": "client:nobody"]))), now: 1)
        #expect(alice.lastErrorCode == PreflightError.Code.calleeUnavailable.rawValue)
        #expect(alice.machine.isEnded)
    }

    @Test func aCallAtItsMaximumDurationEndsForBothPartiesAndTheSessionsGoOn() throws {
        let edge = Harness()
        var (alice, bob, callSid) = try Self.connected(edge)
        alice.poll(now: 1 + edge.configuration.maximumCallDuration.inSeconds)
        #expect(alice.lastHangup?.callSid == callSid)
        #expect(alice.lastHangup?.code == PreflightError.Code.callDurationExceeded.rawValue)
        bob.deliverNotices(now: 1 + edge.configuration.maximumCallDuration.inSeconds)
        #expect(bob.lastHangup?.code == PreflightError.Code.callDurationExceeded.rawValue)
        #expect(!alice.machine.isEnded && !bob.machine.isEnded)
    }

    @Test func aPartyWhoseSessionEndsEndsTheCallWith31005() throws {
        let edge = Harness(resumeWindow: .zero)
        var (alice, bob, _) = try Self.connected(edge)
        // No resume window: a lost connection ends the session at once.
        alice.handle(.closed(protocolError: false), now: 2)
        #expect(alice.machine.isEnded)
        bob.deliverNotices(now: 2)
        #expect(bob.lastHangup?.code == PreflightError.Code.connectionError.rawValue)
        #expect(edge.admissions.total == 1)
    }

    @Test func messagesGoToTheOtherPartyAtMostTenAMinute() throws {
        let edge = Harness()
        var (alice, bob, callSid) = try Self.connected(edge)
        alice.sent.removeAll()
        func message(_ id: String) -> SignalingSessionMachine.Input {
            .message(.message(.init(callSid: callSid, id: id, message: .init(content: "hi", contentType: "text/plain", messageType: "user-defined-message"))))
        }
        for index in 0..<CallMessage.maximumPerWindow { alice.handle(message("m\(index)"), now: 2 + Double(index)) }
        alice.handle(message("over"), now: 20)
        let statuses = alice.sent.compactMap { if case .messageStatus(let status) = $0 { status.code } else { nil } as Int?? }
        #expect(statuses.count == CallMessage.maximumPerWindow + 1)
        #expect(statuses.prefix(CallMessage.maximumPerWindow).allSatisfy { $0 == nil })
        #expect(statuses.last == PreflightError.Code.callMessageRateLimited.rawValue)
        bob.deliverNotices(now: 20)
        #expect(bob.sent.filter { if case .message = $0 { true } else { false } }.count == CallMessage.maximumPerWindow)
        // A minute after the first, there is room again.
        alice.handle(message("later"), now: 2 + CallMessage.rateWindow + 0.5)
        guard case .messageStatus(let status)? = alice.sent.last else {
            Issue.record("expected a status")
            return
        }
        #expect(status.code == nil)
    }

    @Test func insightsOfACallOfThisIdentityAreStoredAndOthersRefused() throws {
        let edge = Harness()
        var bob = Self.callee(edge, "bob")
        var (alice, callSid) = try Self.dial(edge, to: "bob")
        bob.deliverNotices(now: 1)
        let event = InsightsEvent(.connection, "ringing", timestamp: 1, payload: [:])
        alice.handle(.message(.insights(.init(callSid: callSid, events: [event]))), now: 2)
        #expect(edge.storedBatches.map(\.callSid) == [callSid])
        #expect(edge.storedBatches.first?.events.first?.edge == "edge-a")
        alice.handle(.message(.insights(.init(callSid: "CA-someone-else", events: [event]))), now: 2)
        #expect(alice.lastErrorCode == PreflightError.Code.malformed.rawValue)
        #expect(alice.machine.isEnded)
        bob.deliverNotices(now: 2)
        guard case .cancel? = bob.sent.last else {
            Issue.record("the caller's end stops the ringing, got \(bob.sent)")
            return
        }
    }
}

extension SessionMachineCallTests {
    @Test func aDrainingEdgeEndsIdleSessionsAtOnceAndCallsWhenTheyEnd() throws {
        let edge = Harness()
        var idle = Self.callee(edge, "carol")
        var (alice, bob, callSid) = try Self.connected(edge)
        idle.handle(.draining(limitReached: false), now: 5)
        #expect(idle.lastErrorCode == PreflightError.Code.edgeDraining.rawValue)
        #expect(idle.machine.isEnded)
        alice.handle(.draining(limitReached: false), now: 5)
        bob.handle(.draining(limitReached: false), now: 5)
        #expect(!alice.machine.isEnded && !bob.machine.isEnded)
        // The call ends naturally: each session then ends with 70109.
        bob.handle(.message(.hangup(.init(callSid: callSid))), now: 6)
        alice.deliverNotices(now: 6)
        #expect(alice.lastHangup?.callSid == callSid)
        #expect(alice.lastErrorCode == PreflightError.Code.edgeDraining.rawValue)
        #expect(alice.machine.isEnded && bob.machine.isEnded)
    }

    @Test func atTheDrainLimitACallEndsForBothPartiesWith70109() throws {
        let edge = Harness()
        var (alice, bob, callSid) = try Self.connected(edge)
        alice.handle(.draining(limitReached: false), now: 5)
        alice.handle(.draining(limitReached: true), now: 35)
        #expect(alice.lastHangup == .init(callSid: callSid, reason: SignalingSessionMachine.drainingError.message, code: 70109))
        #expect(alice.machine.isEnded)
        bob.deliverNotices(now: 35)
        #expect(bob.lastHangup?.code == PreflightError.Code.edgeDraining.rawValue)
    }

    @Test func aHelloWhileTheEdgeDrainsIsRefused() {
        let edge = Harness()
        var session = edge.session(draining: true)
        session.signIn(Harness.claims("dave"))
        #expect(session.lastErrorCode == PreflightError.Code.edgeDraining.rawValue)
        #expect(session.machine.isEnded)
        #expect(edge.admissions.total == 0)
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

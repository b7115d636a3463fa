import NIOCore
import PreflightCore
import Testing

@testable import PreflightEdge

/// ``ProbeConsent``'s rule on a fake clock: who may receive a probe's downlink, and for how long.
@Suite struct ProbeConsentTests {
    static let client = SourceKey(try! SocketAddress(ipAddress: "198.18.0.10", port: 5000))!
    static let victim = SourceKey(try! SocketAddress(ipAddress: "198.18.0.66", port: 5000))!

    @Test func nothingIsAllowedBeforeTheAddressAnswers() {
        var consent = ProbeConsent()
        #expect(consent.isDue(for: Self.client, now: 0))
        #expect(!consent.allows(Self.client, now: 0))
        let id = STUNTransactionID.random()
        consent.ask(Self.client, transactionID: id, now: 0)
        #expect(!consent.allows(Self.client, now: 0.01))
        #expect(consent.isAwaitingFirstAnswer(from: Self.client, now: 0.01))
        #expect(!consent.isDue(for: Self.client, now: 0.5))
        #expect(consent.isDue(for: Self.client, now: 1.0))
    }

    @Test func anAnswerFromTheAddressAskedGrantsForThreeSeconds() {
        var consent = ProbeConsent()
        let id = STUNTransactionID.random()
        consent.ask(Self.client, transactionID: id, now: 10)
        #expect(consent.nonce(awaitedFor: id, from: Self.client) != nil)
        consent.grant(id, now: 10.05)
        #expect(consent.allows(Self.client, now: 10.05))
        #expect(consent.allows(Self.client, now: 13.05))
        #expect(!consent.allows(Self.client, now: 13.06))
        #expect(!consent.allows(Self.victim, now: 10.05), "consent is the address's that answered, no other's")
        // Each answer counts once: a replay of it grants nothing more.
        #expect(consent.nonce(awaitedFor: id, from: Self.client) == nil)
    }

    /// The transaction ID went only to the address asked: an answer with it from anywhere else,
    /// or an answer with an ID never sent, is not consent.
    @Test func answersFromElsewhereOrToNothingDoNotCount() {
        var consent = ProbeConsent()
        let id = STUNTransactionID.random()
        consent.ask(Self.victim, transactionID: id, now: 0)
        #expect(consent.nonce(awaitedFor: id, from: Self.client) == nil)
        #expect(consent.nonce(awaitedFor: STUNTransactionID.random(), from: Self.victim) == nil)
        #expect(!consent.allows(Self.victim, now: 0.1))
    }

    /// A victim that never answers is never allowed, and once its first answer is overdue a train
    /// stops waiting for it.
    @Test func anAddressThatNeverAnswersIsNeverAllowed() {
        var consent = ProbeConsent()
        var time = 0.0
        while time < 10 {
            if consent.isDue(for: Self.victim, now: time) { consent.ask(Self.victim, transactionID: .random(), now: time) }
            #expect(!consent.allows(Self.victim, now: time))
            time += 0.1
        }
        #expect(!consent.isAwaitingFirstAnswer(from: Self.victim, now: 3.0))
    }

    /// Another peer starts over: the first address's consent does not carry over, and its late
    /// answers no longer count.
    @Test func anotherPeerStartsOver() {
        var consent = ProbeConsent()
        let first = STUNTransactionID.random()
        consent.ask(Self.client, transactionID: first, now: 0)
        consent.grant(first, now: 0.1)
        let late = STUNTransactionID.random()
        consent.ask(Self.client, transactionID: late, now: 1)
        #expect(consent.isDue(for: Self.victim, now: 1.2), "a new peer is asked at once")
        consent.ask(Self.victim, transactionID: .random(), now: 1.2)
        #expect(!consent.allows(Self.victim, now: 1.3))
        #expect(!consent.allows(Self.client, now: 1.3))
        #expect(consent.nonce(awaitedFor: late, from: Self.client) == nil)
    }

    /// Late answers to the last three requests still count (a slow path), older ones not.
    @Test func theLastThreeRequestsAreRemembered() {
        var consent = ProbeConsent()
        let ids = (0..<4).map { _ in STUNTransactionID.random() }
        for (index, id) in ids.enumerated() { consent.ask(Self.client, transactionID: id, now: Double(index)) }
        #expect(consent.nonce(awaitedFor: ids[0], from: Self.client) == nil)
        #expect(ids[1...].allSatisfy { consent.nonce(awaitedFor: $0, from: Self.client) != nil })
    }

    /// A request the budget held back still moves the next one an interval on, so the edge does
    /// not build a request on every step of its loop.
    @Test func aHeldBackRequestWaitsAnInterval() {
        var consent = ProbeConsent()
        consent.ask(Self.victim, transactionID: nil, now: 5)
        #expect(!consent.isDue(for: Self.victim, now: 5.5))
        #expect(consent.isDue(for: Self.victim, now: 6))
        #expect(consent.outstanding.isEmpty)
    }
}

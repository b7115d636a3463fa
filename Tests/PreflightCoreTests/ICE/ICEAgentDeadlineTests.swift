import PreflightCore
import Testing

/// ``ICEAgent/nextDeadline``: the one timer a driver arms. Every sans-IO test drives the agent
/// from deadline to deadline (``ICEAgentHarness/run(until:)``), so a missed timer shows there as
/// a late retransmission or timeout; these tests pin what the deadline is when nothing else
/// happens.
@Suite struct ICEAgentDeadlineTests {
    @Test func anAgentThatHasNotStartedOrHasEndedNeedsNoTime() throws {
        var harness = ICEAgentHarness()
        #expect(harness.agent.nextDeadline == nil)
        harness.gather()
        try harness.connect()
        harness.run(until: 1)
        #expect(harness.agent.nextDeadline != nil)
        harness.agent.close(now: harness.now)
        #expect(harness.agent.nextDeadline == nil)
    }

    @Test func aConnectedAgentWakesOnlyForItsConsentChecks() throws {
        var harness = ICEAgentHarness()
        harness.gather()
        try harness.connect()
        harness.run(until: 5)
        #expect(harness.agent.phase == .connected)
        let pollsBefore = harness.polls
        let checksBefore = harness.checks.count
        harness.run(until: 65)
        let polls = harness.polls - pollsBefore
        let consentChecks = harness.checks.count - checksBefore
        // Consent every 2 s ± 20 %: 25 to 38 checks in 60 s, one wake-up each (a 10 ms tick
        // would have been 6,000).
        #expect((25...38).contains(consentChecks))
        #expect(polls == consentChecks)
        #expect(harness.agent.phase == .connected)
    }

    @Test func theDeadlineIsTheNextPacedCheckWhilePairsWait() throws {
        var harness = ICEAgentHarness()
        harness.answering = false
        harness.gather(hosts: ICEAgentSansIOTests.twoHosts)
        try harness.connect()
        // The first check went at once; the second pair's is due one Ta (50 ms) later.
        #expect(harness.checks.count == 1)
        let deadline = try #require(harness.agent.nextDeadline)
        #expect(abs(deadline - 0.05) < 1e-6)
        harness.run(until: 0.05)
        #expect(harness.checks.count == 2)
    }
}

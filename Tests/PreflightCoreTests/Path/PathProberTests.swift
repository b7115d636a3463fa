import PreflightCore
import Testing

/// The prober in virtual time: a simulated path of routers answers (or not) each probe it is
/// handed; nothing but the prober's own schedule moves time.
@Suite struct PathProberTests {
    /// A path: hop `i` (TTL i+1) is `routers[i]`; the last one is the destination, which answers
    /// every TTL from its own up. `answers(ttl, n)` says whether the n-th probe sent with that TTL
    /// is answered; each answer takes `rtt(hop)` seconds.
    struct SimulatedPath {
        var routers: [String]
        var answers: (Int, Int) -> Bool = { _, _ in true }
        var rtt: (Int) -> Double = { Double($0) * 0.010 }

        /// Runs `prober` to its end; every probe and its send time.
        func run(_ prober: inout PathProber, start: Double = 100) -> [(ttl: Int, at: Double)] {
            var now = start
            var pending: [(at: Double, id: STUNTransactionID, ttl: Int)] = []
            var sent: [(ttl: Int, at: Double)] = []
            var counts: [Int: Int] = [:]
            for _ in 0..<100_000 {
                while let probe = prober.poll(now: now) {
                    sent.append((probe.ttl, now))
                    counts[probe.ttl, default: 0] += 1
                    let reaches = min(probe.ttl, routers.count)
                    if answers(probe.ttl, counts[probe.ttl] ?? 0) {
                        pending.append((now + rtt(reaches), probe.transactionID, probe.ttl))
                    }
                }
                let nextAnswer = pending.map(\.at).min()
                guard let deadline = [prober.nextDeadline(now: now), nextAnswer].compactMap({ $0 }).min() else { break }
                now = max(now, deadline)
                for answer in pending where answer.at <= now {
                    let hop = min(answer.ttl, routers.count)
                    let kind: PathProber.AnswerKind = hop == routers.count ? .destination : .timeExceeded
                    prober.answered(answer.id, kind: kind, from: routers[hop - 1], at: answer.at)
                }
                pending.removeAll { $0.at <= now }
            }
            return sent
        }
    }

    @Test func discoveryStopsAtTheDestinationAndRoundsVisitTheFocusWithinTheBudget() {
        var prober = PathProber(
            configuration: .init(probeBudget: 45, duration: 10), focus: { hops in [1, hops.count - 1] })
        let path = SimulatedPath(routers: ["10.0.0.1", "198.51.100.1", "198.51.100.9", "203.0.113.5"])
        let sent = path.run(&prober)
        #expect(prober.destinationTTL == 4)
        #expect(prober.hops.map(\.ttl) == [1, 2, 3, 4])
        #expect(prober.hops.map(\.address) == ["10.0.0.1", "198.51.100.1", "198.51.100.9", "203.0.113.5"])
        #expect(prober.hops[3].reachedDestination)
        // Discovery: TTL 1-4 first, 50 ms apart (no TTL past the destination's answer: 40 ms away).
        #expect(sent.prefix(4).map(\.ttl) == [1, 2, 3, 4])
        #expect(!sent.dropFirst(4).contains { $0.ttl > 4 })
        // Rounds: only the focus (1 and 3), alternating, within the budget and the time.
        #expect(Set(sent.dropFirst(5).map(\.ttl)) == [1, 3])
        #expect(sent.count <= 45)
        #expect(sent.allSatisfy { $0.at < 100 + 10 - 1.5 })
        // No hop asked for more than 0.9 answers a second in rounds.
        #expect(abs(prober.hopInterval - 1 / 0.9) < 1e-9)
        for ttl in [1, 3] {
            let times = sent.dropFirst(5).filter { $0.ttl == ttl }.map(\.at)
            #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= prober.hopInterval - 1e-9 })
            #expect(times.count >= 7)
        }
        #expect(prober.isFinished(now: 200))
        #expect(prober.answersReceived == prober.probesSent)
        #expect(prober.hops[0].roundTrips.allSatisfy { abs($0 - 0.010) < 1e-9 })
    }

    @Test func lostAndLateAnswersCountAsLostAndShortQuotesGoToTheOldestProbe() {
        var prober = PathProber(configuration: .init(probeBudget: 20, duration: 10, answerTimeout: 1.0))
        var now = 0.0
        let first = prober.poll(now: now)
        #expect(first?.ttl == 1)
        now = 0.05
        let second = prober.poll(now: now)
        #expect(second?.ttl == 2)
        // An answer without a transaction ID (an RFC 792 router quoting 8 bytes) takes the oldest.
        prober.answered(nil, kind: .timeExceeded, from: "192.0.2.1", at: 0.06)
        #expect(prober.hops[0].roundTrips == [0.06])
        // The second probe's answer comes after its time: lost.
        prober.answered(second?.transactionID, kind: .timeExceeded, from: "192.0.2.2", at: 1.2)
        #expect(prober.hops[1].roundTrips.isEmpty)
        #expect(prober.hops[1].address == nil)
        // An answer naming no probe sent is ignored.
        prober.answered(STUNTransactionID(high: 1, low: 2), kind: .destination, from: "192.0.2.9", at: 1.3)
        #expect(prober.destinationTTL == nil)
        #expect(prober.answersReceived == 1)
    }

    @Test func aSilentPathIsProbedToTheMaximumAndNoFurther() {
        var prober = PathProber(configuration: .init(maximumHops: 8, probeBudget: 100, duration: 10))
        let path = SimulatedPath(routers: (1...20).map { "192.0.2.\($0)" }, answers: { ttl, _ in ttl <= 2 })
        let sent = path.run(&prober)
        #expect(prober.destinationTTL == nil)
        #expect(sent.map(\.ttl).max() == 8)
        #expect(prober.hops.count == 8)
        #expect(prober.hops[2...].allSatisfy { $0.address == nil })
        // Rounds go one hop past the last that answered.
        #expect(Set(sent.dropFirst(8).map(\.ttl)).isSubset(of: [1, 2, 3]))
    }

    @Test func anUnreachableFromARouterEndsThePath() {
        var prober = PathProber(configuration: .init(probeBudget: 10, duration: 5))
        let probe = prober.poll(now: 0)
        #expect(probe?.ttl == 1)
        prober.answered(probe?.transactionID, kind: .unreachable, from: "192.0.2.1", at: 0.01)
        #expect(prober.destinationTTL == 1)
        #expect(prober.hops.count == 1 && prober.hops[0].unreachable)
        #expect(prober.poll(now: 0.1) == nil || prober.hops.count == 1)
    }

    /// The probe to the destination's TTL was lost in discovery: the next TTL's answer came from
    /// the destination. The recheck finds it a hop nearer, and a router whose one probe was lost
    /// is asked again, so neither shows as a silent hop.
    @Test func aLostDiscoveryProbeHidesNeitherARouterNorTheDestination() {
        var prober = PathProber(configuration: .init(probeBudget: 40, duration: 10))
        let path = SimulatedPath(routers: ["192.168.1.1", "198.51.100.1", "198.51.100.9", "203.0.113.5"], answers: { ttl, n in
            !(n == 1 && (ttl == 4 || ttl == 2))
        })
        let sent = path.run(&prober)
        #expect(prober.destinationTTL == 4)
        #expect(prober.hops.map(\.address) == ["192.168.1.1", "198.51.100.1", "198.51.100.9", "203.0.113.5"])
        #expect(sent.prefix(5).map(\.ttl) == [1, 2, 3, 4, 5])
        // The rechecks: TTL 2 (silent) and TTL 4 (just before the destination's answer at 5).
        #expect(Array(sent.dropFirst(5).prefix(2).map(\.ttl)) == [2, 4])
    }

    /// A long path and a small budget: the hops kept are the focus's first ones, as many as the
    /// budget asks at the hops' pace to the end; a larger budget keeps more.
    @Test func theBudgetDecidesHowManyFocusHopsAreKept() {
        let routers = (1...12).map { "198.51.100.\($0)" }
        let priority = [11, 6, 2, 1, 3, 4, 5, 7, 8, 9, 10]
        var small = PathProber(configuration: .init(probeBudget: 45, duration: 10), focus: { _ in priority })
        let few = SimulatedPath(routers: routers).run(&small)
        // ~30 probes left after discovery (TTL 1-14: the destination's answer takes 120 ms) and
        // its rechecks; a hop asked 0.9 times a second for ~8 s takes ~7.
        #expect(small.focused == [2, 6, 11, 1].sorted())
        #expect(Set(few.suffix(20).map(\.ttl)) == Set(small.focused ?? []))
        #expect(few.count <= 45)
        var large = PathProber(configuration: .init(probeBudget: 200, duration: 10), focus: { _ in priority })
        _ = SimulatedPath(routers: routers).run(&large)
        #expect(large.focused?.count == 11)
    }

    @Test func theBudgetIsNeverExceeded() {
        for budget in [1, 3, 7] {
            var prober = PathProber(configuration: .init(probeBudget: budget, duration: 10))
            let sent = SimulatedPath(routers: ["a", "b", "c", "d", "e", "f"]).run(&prober)
            #expect(sent.count == budget)
            #expect(prober.probesSent == budget)
        }
    }
}

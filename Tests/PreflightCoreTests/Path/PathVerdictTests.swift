import PreflightCore
import Testing

/// The verdict's rules on made-up observations: segments, notes, and what is blamed.
@Suite struct PathVerdictTests {
    /// A hop: `answered` of `sent` answered by `address`, in `rtt` ms ± `jitter` by turns (so
    /// successive round trips differ by twice `jitter`).
    static func hop(
        _ ttl: Int, _ address: String?, sent: Int = 14, answered: Int? = nil, rtt: Double = 1, jitter: Double = 0, destination: Bool = false
    ) -> PathProber.HopObservation {
        let count = address == nil ? 0 : (answered ?? sent)
        let trips = (0..<count).map { (rtt + (($0 % 2 == 0) ? jitter : -jitter)) / 1000 }
        return PathProber.HopObservation(
            ttl: ttl, sent: sent, roundTrips: trips, answerers: address.map { [$0: count] } ?? [:], reachedDestination: destination)
    }

    static let clean = PathVerdict.Destination(lossUp: 0, lossDown: 0, jitter: 0.3, packets: 1000)
    let verdict = PathVerdict()

    func diagnose(_ hops: [PathProber.HopObservation], _ destination: PathVerdict.Destination = clean, network: NetworkType? = .wifi) -> PathDiagnosis {
        verdict.diagnose(
            hops: hops, destinationAddress: "203.0.113.5:40000", destination: destination, localNetwork: network, probesSent: 0, answersReceived: 0)
    }

    @Test func segmentsFollowTheAddresses() throws {
        let hops = [
            Self.hop(1, "192.168.1.1"), Self.hop(2, "10.0.0.1"), Self.hop(3, nil), Self.hop(4, "100.64.0.1"), Self.hop(5, "198.51.100.1"),
            Self.hop(6, "198.51.100.9"), Self.hop(7, "203.0.113.5", destination: true),
        ]
        let diagnosis = diagnose(hops)
        #expect(diagnosis.hops.map(\.segment) == [
            .localNetwork, .homeNetwork, .homeNetwork, .accessNetwork, .accessNetwork, .pathToEdge, .pathToEdge,
        ])
        #expect(diagnosis.segments.map(\.name) == [
            "your Wi-Fi", "your home or office network", "your internet provider's access network", "the way to the edge",
        ])
        #expect(diagnosis.segments.map(\.firstHop) == [1, 2, 4, 6])
        #expect(diagnosis.hops[2].note == .noAnswer)
        #expect(diagnosis.hops[6].note == .destination)
        #expect(diagnosis.blames.isEmpty && diagnosis.suspects.isEmpty)
        #expect(diagnosis.summary.hasPrefix("No loss, jitter or delay to worry a call on the 7 hops to the edge."))
        #expect(diagnosis.summary.contains("Hop 3 never answers"))
        // The focus: the last answering hop of each segment but the destination's, then the
        // other answering hops (not the silent one, not the destination).
        #expect(verdict.focusHops(hops) == [1, 2, 5, 6, 4])
        var office = PathVerdict.Configuration()
        office.privateNetworks = [try IPNetwork("198.51.100.0/24")]
        #expect(PathVerdict(configuration: office).segmentKinds(hops)[4] == .accessNetwork)
        #expect(PathVerdict.name(.localNetwork, localNetwork: .ethernet) == "your Ethernet network")
        #expect(PathVerdict.name(.localNetwork, localNetwork: nil) == "your local network")
    }

    static let lossy = PathVerdict.Destination(lossUp: 0.05, lossDown: 0.05, jitter: 0.3, packets: 975)

    @Test func lossIsBlamedWhereItStartsAndPersists() throws {
        // 5 % each way (a probe crossing twice: 9.75 %), 50 probes to each boundary (a 40 s test).
        let access = [
            Self.hop(1, "192.168.1.1", sent: 50), Self.hop(2, "198.51.100.1", sent: 1), Self.hop(3, "198.51.100.9", sent: 50, answered: 44),
            Self.hop(4, "203.0.113.5", sent: 1, destination: true),
        ]
        let diagnosis = diagnose(access, Self.lossy)
        let blame = try #require(diagnosis.blames.first)
        #expect(blame.problem == .loss && blame.segment == .accessNetwork)
        #expect(blame.confidence >= 0.95)
        #expect(blame.value == 5)
        #expect(diagnosis.summary.hasPrefix("The loss (5 % of the test's packets) starts in your internet provider's access network"))

        let wifi = [
            Self.hop(1, "192.168.1.1", sent: 50, answered: 44), Self.hop(2, "198.51.100.1", sent: 1), Self.hop(3, "198.51.100.9", sent: 50, answered: 45),
            Self.hop(4, "203.0.113.5", sent: 1, destination: true),
        ]
        #expect(diagnose(wifi, Self.lossy).blames.first?.segment == .localNetwork)

        // Loss beyond the last router: the way to the edge, though an access router loses half its answers.
        let beyond = [
            Self.hop(1, "192.168.1.1", sent: 50), Self.hop(2, "198.51.100.1", sent: 20, answered: 10), Self.hop(3, "198.51.100.9", sent: 50),
            Self.hop(4, "203.0.113.5", sent: 1, destination: true),
        ]
        let far = diagnose(beyond, Self.lossy)
        #expect(far.blames.first?.segment == .pathToEdge)
        #expect(far.hops[1].note == .rateLimitsReplies)
    }

    @Test func weakEvidenceIsASuspectNotABlame() throws {
        // 12 probes each, one lost at the first hop: not enough to be sure.
        let hops = [
            Self.hop(1, "192.168.1.1", sent: 12, answered: 11), Self.hop(2, "198.51.100.1", sent: 1), Self.hop(3, "198.51.100.9", sent: 12, answered: 11),
            Self.hop(4, "203.0.113.5", sent: 1, destination: true),
        ]
        let diagnosis = diagnose(hops, Self.lossy)
        #expect(diagnosis.blames.isEmpty)
        let suspect = try #require(diagnosis.suspects.first)
        #expect(suspect.problem == .loss && suspect.confidence < 0.95 && suspect.confidence > 0)
        #expect(diagnosis.summary.contains("could not place it with confidence"))
    }

    @Test func rateLimitingAloneBlamesNothing() throws {
        // The test lost nothing; hop 2 answered 6 of 14.
        let hops = [
            Self.hop(1, "192.168.1.1"), Self.hop(2, "198.51.100.1", answered: 6), Self.hop(3, "198.51.100.9"),
            Self.hop(4, "203.0.113.5", destination: true),
        ]
        let diagnosis = diagnose(hops)
        #expect(diagnosis.blames.isEmpty && diagnosis.suspects.isEmpty)
        #expect(diagnosis.hops[1].note == .rateLimitsReplies)
        #expect(diagnosis.summary.contains("Hop 2 (198.51.100.1) limits or delays its own replies (57.1 % unanswered): not a problem for calls."))
        // A slow answerer (its ICMP on a slow path) with fast hops after it: also only a note.
        let slow = [Self.hop(1, "192.168.1.1"), Self.hop(2, "198.51.100.1", rtt: 40), Self.hop(3, "198.51.100.9", rtt: 3)]
        #expect(diagnose(slow).hops[1].note == .rateLimitsReplies)
    }

    @Test func jitterStartsAtTheFirstHopFromWhichEveryLaterHopVaries() throws {
        let jittery = PathVerdict.Destination(lossUp: 0, lossDown: 0, jitter: 12, packets: 1000)
        let hops = [
            Self.hop(1, "192.168.1.1", jitter: 0.2), Self.hop(2, "198.51.100.1", jitter: 9), Self.hop(3, "198.51.100.9", jitter: 10),
            Self.hop(4, "203.0.113.5", sent: 1, destination: true),
        ]
        let blame = try #require(diagnose(hops, jittery).blames.first)
        #expect(blame.problem == .jitter && blame.segment == .accessNetwork && blame.startsAtHop == 2 && blame.confidence == 1)
        // Every router quiet: the jitter is past the last one.
        let quiet = [Self.hop(1, "192.168.1.1", jitter: 0.2), Self.hop(2, "198.51.100.1", jitter: 0.3), Self.hop(3, "203.0.113.5", sent: 1, destination: true)]
        #expect(diagnose(quiet, jittery).blames.first?.segment == .pathToEdge)
        // A hop varying by 3 ms before one varying by 8: not blamed, but the likeliest start is
        // the first hop whose answers already vary (a suspect).
        let mixed = [Self.hop(1, "192.168.1.1", jitter: 1.5), Self.hop(2, "198.51.100.1", jitter: 4), Self.hop(3, "203.0.113.5", sent: 1, destination: true)]
        let unsure = diagnose(mixed, jittery)
        #expect(unsure.blames.isEmpty && unsure.suspects.first?.problem == .jitter)
        #expect(unsure.suspects.first?.startsAtHop == 1 && unsure.suspects.first?.segment == .localNetwork)
        // A varying hop that a quiet one follows starts nothing: the start stays after the quiet one.
        let separated = [
            Self.hop(1, "192.168.1.1", jitter: 1.5), Self.hop(2, "198.51.100.1", jitter: 0.2), Self.hop(3, "198.51.100.9", jitter: 4),
            Self.hop(4, "203.0.113.5", sent: 1, destination: true),
        ]
        #expect(diagnose(separated, jittery).suspects.first?.startsAtHop == 3)
        // Below the trigger nothing is looked at.
        #expect(diagnose(hops, Self.clean).blames.isEmpty)
    }

    @Test func delayIsPlacedAtItsStep() throws {
        let hops = [
            Self.hop(1, "192.168.1.1", rtt: 2), Self.hop(2, "198.51.100.1", rtt: 5), Self.hop(3, "198.51.100.9", rtt: 310),
            Self.hop(4, "203.0.113.5", rtt: 320, destination: true),
        ]
        let blame = try #require(diagnose(hops).blames.first)
        #expect(blame.problem == .delay && blame.segment == .accessNetwork && blame.startsAtHop == 3 && abs(blame.value - 305) < 1e-6)
    }

    @Test func likelihoodsPreferTheRightRateAndTolerateRateLimits() throws {
        // All answered: clean is likelier than 10 % loss; 7 of 14 answered: explained by a rate
        // limit either way, so it hardly tells the two apart.
        let v = verdict
        #expect(v.logLikelihood(answered: 14, sent: 14, pass: 0.995) > v.logLikelihood(answered: 14, sent: 14, pass: 0.9))
        #expect(v.logLikelihood(answered: 11, sent: 14, pass: 0.9) > v.logLikelihood(answered: 11, sent: 14, pass: 0.995))
        let half = abs(v.logLikelihood(answered: 7, sent: 14, pass: 0.995) - v.logLikelihood(answered: 7, sent: 14, pass: 0.9))
        #expect(half < 0.5)
        #expect(v.logLikelihood(answered: 0, sent: 0, pass: 0.5) == 0)
    }
}

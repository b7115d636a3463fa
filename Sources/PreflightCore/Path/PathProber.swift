/// The probing half of a path diagnosis, sans I/O: which probe to send when, and what the
/// answers say of each hop. Its driver owns a socket and one timer; it calls ``poll(now:)`` at
/// ``nextDeadline`` (and after each answer) and sends every probe it returns, calls
/// ``answered(_:kind:from:at:)`` for each ICMP error or edge answer, and reads ``hops`` at the end.
/// Times are seconds on any monotonic clock the driver chooses.
///
/// The schedule:
/// 1. **Discovery**: TTL 1, 2, 3… one every ``Configuration/discoverySpacing`` until the
///    destination answers (or a router says it is unreachable), or ``Configuration/maximumHops``;
///    then each TTL below the destination's that did not answer once more (twice for the one just
///    before it), so that one lost probe neither hides a router nor makes the destination seem a
///    hop further than it is.
/// 2. **Rounds**: what is left of ``Configuration/probeBudget`` goes to the hops that `focus` picks
///    from those found, the most telling first (``PathVerdict/focusHops(_:)``; all of them, nearest
///    first, without a focus): as many of them as the budget can ask at the hops' pace
///    (``Configuration/hopAnswerRate``) until the end, at least one. They are asked in turn,
///    spread evenly over what is left of ``Configuration/duration`` (the last
///    ``Configuration/answerTimeout`` left free, so every probe can be answered in it), no hop
///    more often than it answers.
///
/// A probe is a STUN Binding request (RFC 8489, no attributes) with a transaction ID of its own:
/// a router's ICMP error quotes it (Linux routers, and RFC 1812 routers, quote the datagram), the
/// edge answers it as a STUN server does. An answer without the ID (a router that quotes only the
/// first 8 bytes of UDP, RFC 792) goes to the oldest probe still waiting. An answer after
/// ``Configuration/answerTimeout`` counts as lost, as in mtr.
public struct PathProber: Sendable {
    /// The schedule's settings.
    public struct Configuration: Sendable, Hashable {
        /// The highest TTL probed: 30 by default, as traceroute's.
        public var maximumHops: Int
        /// The most probes sent in all.
        public var probeBudget: Int
        /// Seconds the probes are spread over (the test's duration).
        public var duration: Double
        /// Seconds between discovery probes: 0.05 by default.
        public var discoverySpacing: Double
        /// Seconds a probe's answer may take: 1.5 by default.
        public var answerTimeout: Double
        /// The ICMP errors a router is assumed to send one address a second: 0.9 by default.
        /// Routers limit them (Linux: one a second after a burst of 6, `net.ipv4.icmp_ratelimit`);
        /// probing a hop faster reads its rate limit as loss. The burst is not counted on: an
        /// earlier traceroute, or another probe of the same device, may have spent it.
        public var hopAnswerRate: Double

        /// Creates a configuration; see each property for its default.
        public init(
            maximumHops: Int = 30, probeBudget: Int, duration: Double, discoverySpacing: Double = 0.05, answerTimeout: Double = 1.5,
            hopAnswerRate: Double = 0.9
        ) {
            self.maximumHops = maximumHops
            self.probeBudget = probeBudget
            self.duration = duration
            self.discoverySpacing = discoverySpacing
            self.answerTimeout = answerTimeout
            self.hopAnswerRate = hopAnswerRate
        }
    }

    /// A probe to send now.
    public struct Probe: Sendable, Hashable {
        /// Its TTL (hop limit).
        public let ttl: Int
        /// The transaction ID of its STUN Binding request.
        public let transactionID: STUNTransactionID
    }

    /// Who answered a probe, and how.
    public enum AnswerKind: Sendable, Hashable {
        /// ICMP time exceeded: a router on the way.
        case timeExceeded
        /// ICMP destination unreachable (port unreachable from the destination host, or a
        /// router's refusal): the path ends here.
        case unreachable
        /// The edge's STUN answer: the destination.
        case destination
    }

    /// What the probes of one TTL saw.
    public struct HopObservation: Sendable, Hashable {
        /// The TTL of its probes.
        public let ttl: Int
        /// Probes sent with this TTL.
        public internal(set) var sent = 0
        /// Round-trip times of the probes answered in time, seconds, in the order they were sent.
        public internal(set) var roundTrips: [Double] = []
        /// Who answered, and how often (a hop with two routers behind a balancer has two).
        public internal(set) var answerers: [String: Int] = [:]
        /// Whether the destination answered probes of this TTL.
        public internal(set) var reachedDestination = false
        /// Whether a router said the destination is unreachable.
        public internal(set) var unreachable = false

        /// An observation as the prober makes them (for tests and replays: `roundTrips` in seconds).
        public init(
            ttl: Int, sent: Int = 0, roundTrips: [Double] = [], answerers: [String: Int] = [:], reachedDestination: Bool = false,
            unreachable: Bool = false
        ) {
            self.ttl = ttl
            self.sent = sent
            self.roundTrips = roundTrips
            self.answerers = answerers
            self.reachedDestination = reachedDestination
            self.unreachable = unreachable
        }

        /// The address that answered most often; `nil` for a hop that never answered.
        public var address: String? {
            answerers.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
        }
    }

    /// The settings it was made with.
    public let configuration: Configuration
    /// When the first poll came: the schedule's origin.
    public private(set) var start: Double?
    /// Probes sent, and answers counted (in time, to a probe sent).
    public private(set) var probesSent = 0
    public private(set) var answersReceived = 0
    private var observations: [HopObservation] = []
    private var outstanding: [STUNTransactionID: (ttl: Int, sentAt: Double)] = [:]
    private var nextDiscoveryTTL = 1
    private var lastDiscoveryAt: Double?
    /// The TTLs discovery asks again once the destination answered; `nil` until then.
    private var rechecks: [Int]?
    private var recheckProbes: [STUNTransactionID] = []
    private var roundTTL = 0
    private var lastRoundAt: Double?
    /// The lowest TTL the destination answered (or a router refused at).
    public private(set) var destinationTTL: Int?
    private var generator: any RandomNumberGenerator & Sendable
    private let focus: @Sendable ([HopObservation]) -> [Int]
    /// The TTLs rounds visit, chosen when discovery ends.
    public private(set) var focused: [Int]?
    /// The shortest time between two probes to one hop in rounds.
    public var hopInterval: Double { 1 / max(0.001, configuration.hopAnswerRate) }

    /// Creates a prober; `focus` picks the TTLs the rounds visit from the hops discovery found
    /// (all of them by default), `generator` draws the transaction IDs (the system's by default).
    public init(
        configuration: Configuration, focus: @escaping @Sendable ([HopObservation]) -> [Int] = { $0.map(\.ttl) },
        generator: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        self.configuration = configuration
        self.focus = focus
        self.generator = generator
    }

    /// The hops probed, TTL 1 first, up to the destination's when it answered.
    public var hops: [HopObservation] {
        let last = destinationTTL ?? observations.count
        return Array(observations.prefix(last))
    }

    /// Whether discovery is over: the destination answered, a router refused, or every TTL up to
    /// the maximum was sent and its answer time is past.
    private func discoveryDone(now: Double) -> Bool {
        if destinationTTL != nil {
            // Done once the rechecks went out and none waits for its answer any more.
            guard let rechecks, rechecks.isEmpty else { return false }
            return !recheckProbes.contains { outstanding[$0] != nil }
        }
        if nextDiscoveryTTL <= configuration.maximumHops { return false }
        return (lastDiscoveryAt ?? now) + configuration.answerTimeout <= now
    }

    /// The TTLs rounds visit: up to the destination's, or one past the last that answered.
    private var roundHops: Int {
        if let destinationTTL { return destinationTTL }
        let answered = observations.lastIndex { !$0.answerers.isEmpty }.map { $0 + 2 } ?? 1
        return min(answered, configuration.maximumHops)
    }

    private var end: Double? { start.map { $0 + configuration.duration - configuration.answerTimeout } }

    /// The next probe due at `now`, or `nil` when none is; call again until `nil`.
    public mutating func poll(now: Double) -> Probe? {
        if start == nil { start = now }
        expire(now: now)
        guard probesSent < configuration.probeBudget, let end, now < end else { return nil }
        if !discoveryDone(now: now) {
            if let last = lastDiscoveryAt, now < last + configuration.discoverySpacing { return nil }
            if let destination = destinationTTL {
                if rechecks == nil {
                    let silent = observations.prefix(destination - 1).filter { $0.answerers.isEmpty && $0.sent < 2 }.map(\.ttl)
                    rechecks = silent + (silent.last == destination - 1 ? [destination - 1] : [])
                }
                // The destination may have come nearer meanwhile (a recheck it answered).
                rechecks = rechecks?.filter { $0 < destination }
                guard let ttl = rechecks?.first else { return nil }
                rechecks?.removeFirst()
                lastDiscoveryAt = now
                let probe = send(ttl: ttl, now: now)
                recheckProbes.append(probe.transactionID)
                return probe
            }
            guard nextDiscoveryTTL <= configuration.maximumHops else { return nil }
            lastDiscoveryAt = now
            defer { nextDiscoveryTTL += 1 }
            return send(ttl: nextDiscoveryTTL, now: now)
        }
        if focused == nil {
            let known = Array(observations.prefix(roundHops)) + (observations.count < roundHops ? [HopObservation(ttl: roundHops)] : [])
            var picked: [Int] = []
            for ttl in focus(known) where (1...roundHops).contains(ttl) && !picked.contains(ttl) { picked.append(ttl) }
            if picked.isEmpty { picked = Array(1...roundHops) }
            // Each hop kept is asked at its pace to the end; the budget decides how many are kept.
            let perHop = max(1, configuration.hopAnswerRate * max(0, end - now))
            let affordable = max(1, Int(Double(configuration.probeBudget - probesSent) / perHop))
            focused = Array(picked.prefix(affordable)).sorted()
        }
        guard let visits = focused, let due = nextRoundAt(now: now), now >= due else { return nil }
        lastRoundAt = now
        roundTTL = (visits.firstIndex { $0 > roundTTL }).map { visits[$0] } ?? visits[0]
        return send(ttl: roundTTL, now: now)
    }

    /// When the next round probe is due: what is left of the budget spread evenly over what is
    /// left of the time, and no hop probed again sooner than ``hopInterval``.
    private func nextRoundAt(now: Double) -> Double? {
        guard let end else { return nil }
        let left = configuration.probeBudget - probesSent
        guard left > 0 else { return nil }
        let from = lastRoundAt ?? lastDiscoveryAt ?? now
        let hops = Double(max(1, focused?.count ?? roundHops))
        return from + max(max(0, end - from) / Double(left + 1), hopInterval / hops)
    }

    private mutating func send(ttl: Int, now: Double) -> Probe {
        while observations.count < ttl { observations.append(HopObservation(ttl: observations.count + 1)) }
        observations[ttl - 1].sent += 1
        probesSent += 1
        var id = STUNTransactionID.random(using: &generator)
        while outstanding[id] != nil { id = STUNTransactionID.random(using: &generator) }
        outstanding[id] = (ttl, now)
        return Probe(ttl: ttl, transactionID: id)
    }

    /// Forgets probes whose answer time is past: they count as lost.
    private mutating func expire(now: Double) {
        outstanding = outstanding.filter { now - $0.value.sentAt < configuration.answerTimeout }
    }

    /// An answer: `transactionID` is the probe's when the answer quotes it.
    public mutating func answered(_ transactionID: STUNTransactionID?, kind: AnswerKind, from address: String, at now: Double) {
        expire(now: now)
        let id = transactionID ?? outstanding.min { $0.value.sentAt < $1.value.sentAt }?.key
        guard let id, let probe = outstanding.removeValue(forKey: id) else { return }
        answersReceived += 1
        var hop = observations[probe.ttl - 1]
        hop.roundTrips.append(max(0, now - probe.sentAt))
        hop.answerers[address, default: 0] += 1
        switch kind {
        case .timeExceeded: break
        case .unreachable: hop.unreachable = true
        case .destination: hop.reachedDestination = true
        }
        observations[probe.ttl - 1] = hop
        if kind != .timeExceeded, probe.ttl < (destinationTTL ?? Int.max) { destinationTTL = probe.ttl }
    }

    /// When ``poll(now:)`` has something to do next; `nil` once the diagnosis is over.
    public func nextDeadline(now: Double) -> Double? {
        guard let start else { return now }
        var deadlines: [Double] = outstanding.values.map { $0.sentAt + configuration.answerTimeout }
        if probesSent < configuration.probeBudget, let end, now < end {
            if !discoveryDone(now: now) {
                if destinationTTL != nil {
                    if rechecks?.isEmpty != true { deadlines.append((lastDiscoveryAt ?? start) + configuration.discoverySpacing) }
                } else if nextDiscoveryTTL <= configuration.maximumHops {
                    deadlines.append((lastDiscoveryAt ?? start) + configuration.discoverySpacing)
                } else if let last = lastDiscoveryAt {
                    deadlines.append(last + configuration.answerTimeout)
                }
            } else if let due = nextRoundAt(now: now) {
                deadlines.append(due)
            }
        }
        return deadlines.min()
    }

    /// Whether nothing is left to send or wait for.
    public func isFinished(now: Double) -> Bool { start != nil && nextDeadline(now: now) == nil }
}

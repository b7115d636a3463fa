/// The check list of a controlling full ICE agent for one component (RFC 8445 §6.1.2–§8.1.1):
/// forms and orders the candidate pairs, paces checks one per `Ta`, retransmits each on its own
/// timer, nominates the best valid pair with USE-CANDIDATE (regular nomination) and tells when
/// everything has failed. Pure state: the caller sends what ``poll(now:)`` asks for and feeds
/// back the responses; times are seconds on any monotonic clock.
public struct ICECheckList: Sendable {
    /// How checks are paced and retried.
    public struct Configuration: Sendable, Hashable {
        /// `Ta`, the pacing of new checks; 50 ms by default (RFC 8445 §14.2).
        public var pacing: Double
        /// The first retransmission timeout; 250 ms by default (libwebrtc's initial STUN RTO: a
        /// pre-call test values connection time over RFC 8445's 500 ms floor).
        public var initialRetransmissionTimeout: Double
        /// The longest retransmission timeout the doubling reaches; 1.6 s by default.
        public var maximumRetransmissionTimeout: Double
        /// Transmissions of one check before its pair fails (`Rc`); 7 by default (RFC 8489 §6.2.1).
        public var maximumTransmissions: Int
        /// How long after the first valid pair the agent waits for better pairs to validate
        /// before it nominates the best valid pair; 0.5 s by default.
        public var nominationDelay: Double
        /// The most pairs kept, highest priority first; 100 by default (RFC 8445 §6.1.2.5), so a
        /// peer that sends thousands of candidates cannot make the agent check them all.
        public var maximumPairs: Int

        /// Creates a configuration; see each property for its default.
        public init(
            pacing: Double = 0.05, initialRetransmissionTimeout: Double = 0.25, maximumRetransmissionTimeout: Double = 1.6,
            maximumTransmissions: Int = 7, nominationDelay: Double = 0.5, maximumPairs: Int = 100
        ) {
            self.pacing = pacing
            self.initialRetransmissionTimeout = initialRetransmissionTimeout
            self.maximumRetransmissionTimeout = maximumRetransmissionTimeout
            self.maximumTransmissions = maximumTransmissions
            self.nominationDelay = nominationDelay
            self.maximumPairs = maximumPairs
        }
    }

    /// A pair's state (RFC 8445 §6.1.2.6); the raw values are WebRTC's `RTCStatsIceCandidatePairState`.
    public enum PairState: String, Sendable, Hashable, Codable {
        /// Not checked yet, waiting for a pair of its foundation.
        case frozen
        /// To be checked when its turn comes.
        case waiting
        /// A check is outstanding.
        case inProgress = "in-progress"
        /// A check succeeded: the pair is valid.
        case succeeded
        /// Every transmission timed out, or the check was refused.
        case failed
    }

    /// One candidate pair.
    public struct Pair: Sendable, Hashable {
        /// The local candidate's index in the list the check list was made from.
        public let local: Int
        /// The remote candidate's index.
        public let remote: Int
        /// The pair priority (RFC 8445 §6.1.2.3).
        public let priority: UInt64
        /// The pair's foundation: the local and remote foundations joined.
        public let foundation: String
        /// The pair's state.
        public internal(set) var state: PairState
        /// Whether a check with USE-CANDIDATE succeeded on the pair.
        public internal(set) var nominated = false
        /// Binding requests sent on the pair, retransmissions included.
        public internal(set) var requestsSent = 0
        /// Success responses received on the pair.
        public internal(set) var responsesReceived = 0
        /// The latest round-trip time of a check, seconds.
        public internal(set) var roundTripTime: Double?
        /// The reflexive address the remote side saw the check come from.
        public internal(set) var mappedAddress: TransportAddress?
        /// The STUN error of a refused check.
        public internal(set) var error: STUNErrorCode?
        /// Whether its local candidate's network went away (``ICECheckList/retire(where:)``): failed
        /// for good, never checked again.
        public internal(set) var retired = false
        /// Whether it was added while checking (``ICECheckList/add(local:at:remote:)``): only
        /// such a pair takes the media from a selected one (RFC 8445 §8.1.1 nominates once; a
        /// new network is the exception this agent makes, and its ICE-lite edge follows).
        var addedLater = false
    }

    /// What to send.
    public struct Check: Sendable, Hashable {
        /// The pair to send on.
        public var pair: Int
        /// The request's transaction (retransmissions repeat it, RFC 8489 §6.2.1).
        public var transactionID: STUNTransactionID
        /// Whether the request carries USE-CANDIDATE (a nomination).
        public var useCandidate: Bool
    }

    /// What a response meant.
    public enum Outcome: Sendable, Hashable {
        /// The pair is valid (the check succeeded).
        case validated(pair: Int)
        /// The nomination succeeded: media goes on this pair now.
        case selected(pair: Int)
        /// A consent check on the pair succeeded (RFC 7675).
        case consent(pair: Int)
        /// The check failed.
        case failed(pair: Int)
    }

    struct Transaction {
        var pair: Int
        var useCandidate: Bool
        var consent: Bool
        var firstSent: Double
        var lastSent: Double
        var transmissions: Int
        var timeout: Double
        var nextRetransmit: Double
    }

    /// The configuration.
    public let configuration: Configuration
    /// The pairs: highest priority first as formed, then those of candidates added later
    /// (``add(local:at:remote:)``) in the order added. Every choice between pairs goes by priority.
    public private(set) var pairs: [Pair]
    /// The selected (nominated) pair, once a nomination succeeded.
    public private(set) var selected: Int?
    var transactions: [STUNTransactionID: Transaction] = [:]
    var lastPaced: Double?
    var firstValid: Double?
    var nominating: Int?
    /// Set by ``restart(now:)``: nominate again although a pair is selected.
    var renominate = false

    /// Forms the pairs (RFC 8445 §6.1.2.2–§6.1.2.6): every local candidate that can send (host and
    /// relayed; a server-reflexive candidate is checked through its base, its host candidate) with
    /// every remote candidate of the same address family and transport, ordered by pair priority
    /// with the controlling agent's priorities as G, at most ``Configuration/maximumPairs`` of
    /// them; per foundation the first pair waits, the others are frozen.
    public init(local: [ICECandidate], remote: [ICECandidate], configuration: Configuration = Configuration()) {
        self.configuration = configuration
        var pairs: [Pair] = []
        for (l, localCandidate) in local.enumerated() where localCandidate.type != .serverReflexive {
            for (r, remoteCandidate) in remote.enumerated()
            where remoteCandidate.transport == "udp" && Self.isIPv6(localCandidate.address) == Self.isIPv6(remoteCandidate.address)
                && localCandidate.component == remoteCandidate.component
            {
                pairs.append(Pair(
                    local: l, remote: r,
                    priority: Self.pairPriority(controlling: localCandidate.priority, controlled: remoteCandidate.priority),
                    foundation: localCandidate.foundation + ":" + remoteCandidate.foundation, state: .frozen))
            }
        }
        pairs.sort { $0.priority > $1.priority }
        if pairs.count > max(0, configuration.maximumPairs) { pairs.removeSubrange(max(0, configuration.maximumPairs)...) }
        var seen = Set<String>()
        for index in pairs.indices where seen.insert(pairs[index].foundation).inserted {
            pairs[index].state = .waiting
        }
        self.pairs = pairs
    }

    /// The pair priority of RFC 8445 §6.1.2.3: 2³²·min(G, D) + 2·max(G, D) + (G > D ? 1 : 0).
    /// Candidate priorities are at most 2³¹−1 (RFC 8445 §5.1.2.1); larger ones, which only a
    /// broken peer sends, are clamped to it so the sum cannot overflow.
    public static func pairPriority(controlling g: UInt32, controlled d: UInt32) -> UInt64 {
        let g = UInt64(min(g, 0x7FFF_FFFF))
        let d = UInt64(min(d, 0x7FFF_FFFF))
        return (min(g, d) << 32) + 2 * max(g, d) + (g > d ? 1 : 0)
    }

    static func isIPv6(_ address: String) -> Bool { address.contains(":") }

    /// Whether every pair has failed and none was selected: ICE has failed.
    public var hasFailed: Bool {
        selected == nil && pairs.allSatisfy { $0.state == .failed }
    }

    /// The checks due at `now`: retransmissions whose timer expired, and at most one new check per
    /// `Ta` (a nomination first, else the best waiting pair, else the best frozen one).
    public mutating func poll(now: Double) -> [Check] {
        var checks: [Check] = []
        for (id, transaction) in transactions where transaction.nextRetransmit <= now {
            if transaction.transmissions >= configuration.maximumTransmissions {
                transactions[id] = nil
                if nominating == transaction.pair, transaction.useCandidate { nominating = nil }
                if !transaction.consent, pairs[transaction.pair].state == .inProgress {
                    pairs[transaction.pair].state = .failed
                }
                continue
            }
            var next = transaction
            next.transmissions += 1
            next.lastSent = now
            next.timeout = min(next.timeout * 2, configuration.maximumRetransmissionTimeout)
            next.nextRetransmit = now + next.timeout
            transactions[id] = next
            pairs[transaction.pair].requestsSent += 1
            checks.append(Check(pair: transaction.pair, transactionID: id, useCandidate: transaction.useCandidate))
        }
        if let last = lastPaced, now < last + configuration.pacing - 1e-9 { return checks }
        if let check = nextNomination(now: now) ?? nextOrdinaryCheck(now: now) {
            lastPaced = now
            checks.append(check)
        }
        return checks
    }

    /// Makes the checks in flight on `chosen` pairs due at `now` instead of at their
    /// retransmission timers: their last transmission never left the host (the system refused
    /// it). They go at the next ``poll(now:)``, counted and backed off as any retransmission.
    public mutating func retransmitSoon(pairs chosen: Set<Int>, now: Double) {
        for (id, transaction) in transactions where chosen.contains(transaction.pair) && transaction.nextRetransmit > now {
            transactions[id]?.nextRetransmit = now
        }
    }

    /// When ``poll(now:)`` next has something to do: the earliest retransmission, and the next
    /// paced check while a pair waits to be checked or nominated; `nil` when nothing is due ever
    /// (only answers can change that).
    public var nextDeadline: Double? {
        var deadline = transactions.values.lazy.map { $0.nextRetransmit }.min()
        func include(_ time: Double) { deadline = deadline.map { min($0, time) } ?? time }
        let paced = lastPaced.map { $0 + configuration.pacing - 1e-9 } ?? -.infinity
        if pairs.contains(where: { $0.state == .waiting || $0.state == .frozen }) { include(paced) }
        if selected == nil || renominate, nominating == nil, let firstValid, let best = best(where: { $0.state == .succeeded }) {
            include(max(paced, betterPending(than: best) ? firstValid + configuration.nominationDelay : -.infinity))
        }
        return deadline
    }

    /// The highest-priority pair that `matches`.
    func best(where matches: (Pair) -> Bool) -> Int? {
        var found: Int?
        for index in pairs.indices where matches(pairs[index]) {
            if let current = found, pairs[current].priority >= pairs[index].priority { continue }
            found = index
        }
        return found
    }

    /// Whether a pair of higher priority than `index` may still validate.
    func betterPending(than index: Int) -> Bool {
        let priority = pairs[index].priority
        return pairs.contains { $0.priority > priority && $0.state != .failed }
    }

    mutating func nextNomination(now: Double) -> Check? {
        guard selected == nil || renominate, nominating == nil, let firstValid else { return nil }
        guard let best = best(where: { $0.state == .succeeded }) else { return nil }
        // Wait while a better pair may still validate, but not past the nomination delay.
        guard !betterPending(than: best) || now >= firstValid + configuration.nominationDelay else { return nil }
        nominating = best
        return start(pair: best, useCandidate: true, consent: false, now: now)
    }

    mutating func nextOrdinaryCheck(now: Double) -> Check? {
        var index = best { $0.state == .waiting }
        if index == nil { index = best { $0.state == .frozen } }
        guard let index else { return nil }
        pairs[index].state = .inProgress
        return start(pair: index, useCandidate: false, consent: false, now: now)
    }

    mutating func start(pair: Int, useCandidate: Bool, consent: Bool, now: Double) -> Check {
        let id = STUNTransactionID.random()
        transactions[id] = Transaction(
            pair: pair, useCandidate: useCandidate, consent: consent, firstSent: now, lastSent: now, transmissions: 1,
            timeout: configuration.initialRetransmissionTimeout, nextRetransmit: now + configuration.initialRetransmissionTimeout)
        pairs[pair].requestsSent += 1
        return Check(pair: pair, transactionID: id, useCandidate: useCandidate)
    }

    /// A consent freshness check on the selected pair (RFC 7675), retransmitted like any check;
    /// `nil` before a pair is selected.
    public mutating func consentCheck(now: Double) -> Check? {
        guard let selected, !pairs[selected].retired else { return nil }
        return start(pair: selected, useCandidate: false, consent: true, now: now)
    }

    /// Checks every pair again (a reconnect attempt after the selected pair went quiet): pairs
    /// go back to waiting, and the next valid pair is nominated anew. The selected pair stays
    /// selected until another nomination succeeds.
    public mutating func restart(now: Double) {
        transactions = transactions.filter { $0.value.consent }
        nominating = nil
        firstValid = nil
        lastPaced = nil
        for index in pairs.indices where !pairs[index].retired {
            pairs[index].state = .waiting
            pairs[index].error = nil
        }
        renominate = true
    }

    /// A local candidate added while checking (a network that appeared): its pairs with the
    /// remote candidates, formed as ``init(local:remote:configuration:)`` forms them, are added
    /// waiting, while fewer than ``Configuration/maximumPairs`` pairs are live (not retired). When
    /// one of them validates with a higher priority than the selected pair, the best valid pair
    /// is nominated anew (``handleSuccess(_:mappedAddress:now:)``): media moves to it, and stays
    /// where it is otherwise.
    /// - Parameters:
    ///   - local: the candidate; `at`: its index in the agent's list.
    ///   - remote: the remote candidates, in their list's order.
    /// - Returns: how many pairs were added.
    @discardableResult
    public mutating func add(local: ICECandidate, at localIndex: Int, remote: [ICECandidate]) -> Int {
        guard local.type != .serverReflexive else { return 0 }
        var added = 0
        for (r, remoteCandidate) in remote.enumerated()
        where remoteCandidate.transport == "udp" && Self.isIPv6(local.address) == Self.isIPv6(remoteCandidate.address)
            && local.component == remoteCandidate.component
        {
            guard pairs.lazy.filter({ !$0.retired }).count < max(0, configuration.maximumPairs) else { break }
            guard !pairs.contains(where: { $0.local == localIndex && $0.remote == r }) else { continue }
            pairs.append(Pair(
                local: localIndex, remote: r, priority: Self.pairPriority(controlling: local.priority, controlled: remoteCandidate.priority),
                foundation: local.foundation + ":" + remoteCandidate.foundation, state: .waiting, addedLater: true))
            added += 1
        }
        return added
    }

    /// The pairs that `matches` (those of a network that went away) fail for good: their
    /// outstanding checks are dropped and they are never checked again. The selected pair may be
    /// among them: it stays ``selected`` (no consent check goes on it) until another nomination
    /// succeeds.
    /// - Returns: whether the selected pair was retired.
    @discardableResult
    public mutating func retire(where matches: (Pair) -> Bool) -> Bool {
        var retired = Set<Int>()
        for index in pairs.indices where matches(pairs[index]) {
            pairs[index].retired = true
            pairs[index].state = .failed
            retired.insert(index)
        }
        transactions = transactions.filter { !retired.contains($0.value.pair) }
        if let nominating, retired.contains(nominating) { self.nominating = nil }
        return selected.map(retired.contains) ?? false
    }

    /// Whether `id` is one of this check list's outstanding transactions.
    public func isPending(_ id: STUNTransactionID) -> Bool { transactions[id] != nil }

    /// The pair an outstanding transaction was sent on.
    public func pair(of id: STUNTransactionID) -> Int? { transactions[id]?.pair }

    /// A success response (already authenticated by the caller, from the right address):
    /// validates the pair, and selects it when the request nominated it.
    public mutating func handleSuccess(_ id: STUNTransactionID, mappedAddress: TransportAddress?, now: Double) -> Outcome? {
        guard let transaction = transactions.removeValue(forKey: id) else { return nil }
        let index = transaction.pair
        pairs[index].responsesReceived += 1
        pairs[index].roundTripTime = max(0, now - transaction.lastSent)
        if let mappedAddress { pairs[index].mappedAddress = mappedAddress }
        if transaction.consent { return .consent(pair: index) }
        pairs[index].state = .succeeded
        if firstValid == nil { firstValid = now }
        // A pair better than the selected one (a more preferred network's): nominate anew, the
        // nomination delay counting from now for pairs better still.
        if let selected, selected != index, !renominate, pairs[index].addedLater, pairs[index].priority > pairs[selected].priority {
            renominate = true
            firstValid = now
        }
        // Unfreeze the pairs of the same foundation (RFC 8445 §7.2.5.3.3).
        for other in pairs.indices where pairs[other].state == .frozen && pairs[other].foundation == pairs[index].foundation {
            pairs[other].state = .waiting
        }
        if transaction.useCandidate {
            nominating = nil
            pairs[index].nominated = true
            selected = index
            renominate = false
            return .selected(pair: index)
        }
        return .validated(pair: index)
    }

    /// An error response (or an ICMP-like failure) to a check: the pair fails.
    public mutating func handleError(_ id: STUNTransactionID, error: STUNErrorCode?) -> Outcome? {
        guard let transaction = transactions.removeValue(forKey: id) else { return nil }
        if nominating == transaction.pair, transaction.useCandidate { nominating = nil }
        if transaction.consent { return .failed(pair: transaction.pair) }
        pairs[transaction.pair].state = .failed
        pairs[transaction.pair].error = error
        return .failed(pair: transaction.pair)
    }
}

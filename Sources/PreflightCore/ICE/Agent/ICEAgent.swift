/// A controlling ICE agent (RFC 8445) with full gathering (host IPv4 and IPv6, server-reflexive,
/// TURN relays over UDP, TCP and TLS), connectivity checks and nomination, consent freshness
/// (RFC 7675), and disconnection and reconnection.
///
/// It is sans-IO: time and inputs go in (``gather(hosts:sockets:servers:now:)``,
/// ``receive(_:from:on:now:)``, ``poll(now:)``, …), and what to send and what happened come out
/// (``takeOutputs()``). Time is seconds on any monotonic clock the caller chooses, so tests drive
/// it with a fake one. A thin driver moves its bytes (`ICEAgentDriver` in PreflightNIO).
///
/// One agent serves one component of one media stream; several streams or two peer connections
/// (publish and subscribe) run one agent each.
public struct ICEAgent: Sendable {
    /// The agent's settings.
    public let configuration: Configuration
    /// The agent's credentials; ``localCandidates`` are the candidates to offer with them.
    public let localUfrag: String
    /// The agent's ICE password.
    public let localPassword: String
    /// The tie-breaker of ICE-CONTROLLING.
    public let tieBreaker: UInt64

    struct Local: Sendable {
        var candidate: ICECandidate
        var stats: ICECandidateStats
        var path: Path
    }

    struct Remote: Sendable {
        var candidate: ICECandidate
        var address: TransportAddress
        var stats: ICECandidateStats
    }

    struct STUNGathering: Sendable {
        var transactionID: STUNTransactionID
        var bytes: [UInt8]
        var transmissions: Int
        var nextRetransmit: Double
    }

    enum ServerKind: Sendable {
        case stun(STUNGathering)
        case turn(TURNClient)
    }

    struct Server: Sendable {
        let url: ICEServerURL
        let username: String?
        let credential: String?
        var address: TransportAddress?
        var kind: ServerKind?
        var isStream = false
        var connected = false
        var done = false
        /// The network socket it is asked from (``ICEAgent/gatherServers(on:now:)``); `nil`: the
        /// socket bound on every interface of its address's family.
        var socket: Socket?
    }

    /// Where the agent is.
    public enum Phase: Sendable, Hashable {
        /// Not started.
        case new
        /// Gathering candidates.
        case gathering
        /// Gathering is complete; waiting for the remote candidates.
        case gathered
        /// Checking pairs; none selected yet.
        case checking
        /// A pair is selected (possibly disconnected: see ``ICEAgent/disconnectedSince``).
        case connected
        /// ICE failed.
        case failed
        /// Closed by ``ICEAgent/close(now:)``.
        case closed
    }

    /// Where the agent is.
    public internal(set) var phase = Phase.new
    var servers: [Server] = []
    var locals: [Local] = []
    var remotes: [Remote] = []
    var remoteParameters: ICEParameters?
    var checkList: ICECheckList?
    /// The local candidate each valid pair showed (server-reflexive or peer-reflexive when the
    /// remote saw another address than the base's), by pair index.
    var validLocal: [Int: Int] = [:]
    /// The selected pair's index in the check list.
    public internal(set) var selected: Int?
    /// The selected pair, as the report shows it.
    public internal(set) var selectedPair: ICECandidatePairStats?
    var sockets: [Socket: TransportAddress] = [:]
    var foundations: [String: String] = [:]
    var gatheringDeadline: Double?
    var checkDeadline: Double?
    /// When checking started (agent time).
    public internal(set) var checkingStarted: Double?
    /// Since when the selected pair is silent; `nil` while connected.
    public internal(set) var disconnectedSince: Double?
    var lastReceived: Double?
    /// Set when the disconnect timeout was polled late (the driver's loop or the process
    /// stalled): the silence is not judged before this time, so what arrived during the stall
    /// is read first. `nil` otherwise.
    var livenessGraceEnds: Double?
    var lastConsent: Double?
    /// The peer's checks this agent answered (``answerCheck(_:path:source:now:)``).
    public internal(set) var checksAnswered = 0
    var nextConsent: Double?
    /// The loss probes' schedule and fates (``startLossProbes(count:interval:now:)``).
    var lossProbes: LossProbes?
    var watchesLiveness = true
    var random: SplitMix64
    var outputs: [Output] = []
    /// The STUN and TURN servers that gave no candidate.
    public internal(set) var candidateErrors: [ICECandidateErrorRecord] = []

    /// Creates an agent.
    /// - Parameters:
    ///   - configuration: its settings.
    ///   - localUfrag: the ICE username fragment; random by default.
    ///   - localPassword: the ICE password; random by default.
    ///   - seed: seeds the tie-breaker and the consent jitter (tests fix it); random by default.
    public init(
        configuration: Configuration = Configuration(), localUfrag: String? = nil, localPassword: String? = nil,
        seed: UInt64? = nil
    ) {
        self.configuration = configuration
        let credentials = ICEParameters.randomCredentials()
        self.localUfrag = localUfrag ?? credentials.ufrag
        self.localPassword = localPassword ?? credentials.pwd
        var system = SystemRandomNumberGenerator()
        random = SplitMix64(seed: seed ?? system.next())
        tieBreaker = random.next()
    }

    /// Takes what the agent asks the driver to do, oldest first.
    public mutating func takeOutputs() -> [Output] {
        defer { outputs.removeAll(keepingCapacity: true) }
        return outputs
    }

    /// The candidates gathered so far, to offer with ``localUfrag`` and ``localPassword``.
    public var localCandidates: [ICECandidate] { locals.map(\.candidate) }

    /// The local parameters to offer: credentials and the candidates gathered so far.
    public var localParameters: ICEParameters {
        ICEParameters(ufrag: localUfrag, pwd: localPassword, candidates: localCandidates)
    }

    /// Every local and remote candidate, as the report lists them.
    public var candidateStats: [ICECandidateStats] { locals.map(\.stats) + remotes.map(\.stats) }

    /// Whether gathering is over (complete or timed out).
    public var isGatheringComplete: Bool { phase != .new && phase != .gathering }

    /// The route media takes now: over the selected pair; `nil` before one is selected and after
    /// the agent closed or failed.
    public var mediaRoute: Route? {
        guard phase == .connected, let selected else { return nil }
        return route(pair: selected)
    }

    /// What a report lists of the agent: its candidates, the check list's pairs and the servers
    /// that gave no candidate.
    public struct Records: Sendable {
        /// Every local and remote candidate (``ICEAgent/candidateStats``).
        public var candidates: [ICECandidateStats]
        /// The check list's pairs (``ICEAgent/pairRecords``).
        public var pairs: [ICECandidatePairRecord]
        /// The STUN and TURN servers that gave no candidate (``ICEAgent/candidateErrors``).
        public var candidateErrors: [ICECandidateErrorRecord]
    }

    /// The agent's records for a report, read once when the report is assembled.
    public var records: Records { Records(candidates: candidateStats, pairs: pairRecords, candidateErrors: candidateErrors) }

    /// The report's records of the check list's pairs.
    public var pairRecords: [ICECandidatePairRecord] {
        guard let checkList else { return [] }
        return checkList.pairs.enumerated().map { index, pair in
            ICECandidatePairRecord(
                localCandidate: locals[validLocal[index] ?? pair.local].stats, remoteCandidate: remotes[pair.remote].stats,
                state: pair.state.rawValue, nominated: pair.nominated, priority: pair.priority,
                requestsSent: pair.requestsSent, responsesReceived: pair.responsesReceived,
                currentRoundTripTime: pair.roundTripTime, error: pair.error.map { "\($0)" })
        }
    }

    // MARK: Helpers shared by the extensions

    func wallTime(_ now: Double) -> Int64 {
        let milliseconds = configuration.wallClockOrigin + now * 1000
        guard milliseconds.isFinite, milliseconds.magnitude < 9.2e18 else { return 0 }
        return Int64(milliseconds.rounded(.down))
    }

    mutating func mark(_ group: ConnectionStateEvent.Group, _ name: String, detail: String? = nil, now: Double) {
        outputs.append(.event(.timeline(ConnectionStateEvent(group: group, name: name, timestamp: wallTime(now), detail: detail))))
    }

    mutating func emit(_ event: Event) {
        outputs.append(.event(event))
    }

    mutating func transmit(_ bytes: [UInt8], _ transport: Transport) {
        outputs.append(.transmit(bytes, transport))
    }

    /// Ends the agent in failure: the timeline says so and nothing more is sent.
    mutating func fail(_ error: PreflightError, now: Double) {
        guard phase != .failed, phase != .closed else { return }
        phase = .failed
        mark(.iceConnectionState, "failed", now: now)
        emit(.failed(error))
    }

    /// The foundation of a candidate (RFC 8445 §5.1.1.3): the same for the same type, base
    /// address, server and transport.
    mutating func foundation(type: ICECandidateType, base: String, server: String, transport: String) -> String {
        let key = "\(type.rawValue)|\(base)|\(server)|\(transport)"
        if let existing = foundations[key] { return existing }
        let value = "\(foundations.count + 1)"
        foundations[key] = value
        return value
    }

    /// What gathering found, for error messages: candidates by type and the servers that failed.
    var gatheringSummary: String {
        let types = Dictionary(grouping: locals, by: \.stats.candidateType.rawValue).map { "\($0.value.count) \($0.key)" }.sorted()
        let failures = candidateErrors.map { "\($0.url): \($0.errorCode) \($0.errorText)" }
        return "(gathered: \(types.isEmpty ? "none" : types.joined(separator: ", "))"
            + (failures.isEmpty ? "" : "; servers: \(failures.joined(separator: "; "))") + ")"
    }

    func failure(_ why: String) -> PreflightError {
        let pairs = checkList?.pairs.map { pair in
            "\(locals[pair.local].stats.candidateType) \(locals[pair.local].candidate.address):\(locals[pair.local].candidate.port)"
                + " → \(remotes[pair.remote].candidate.address):\(remotes[pair.remote].candidate.port) \(pair.state.rawValue)"
                + (pair.error.map { " (\($0))" } ?? "")
        } ?? []
        return PreflightError(
            code: .mediaConnectionFailed, message: "ICE: \(why); pairs: [\(pairs.joined(separator: ", "))] \(gatheringSummary)")
    }
}

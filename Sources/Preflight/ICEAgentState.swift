internal import NIOCore
internal import PreflightCore
internal import PreflightNIO

/// What the run's ICE agent knows: the servers it gathers from, the local and remote candidates,
/// the check list, and the connection's state history. Owned by the run's loop.
struct ICEAgentState {
    /// Where a local candidate sends from.
    enum Path: Hashable {
        /// The media socket itself (IPv4 host and server-reflexive candidates).
        case direct
        /// The IPv6 media socket (IPv6 host candidates).
        case direct6
        /// Through the TURN allocation of server `index`.
        case relay(Int)
    }

    struct Local {
        var candidate: ICECandidate
        var stats: ICECandidateStats
        var path: Path
    }

    struct Remote {
        var candidate: ICECandidate
        var address: SocketAddress
        var transportAddress: TransportAddress
        var stats: ICECandidateStats
    }

    struct STUNGathering {
        var transactionID: STUNTransactionID
        var bytes: [UInt8]
        var transmissions: Int
        var nextRetransmit: ContinuousClock.Instant
    }

    enum ServerKind {
        case stun(STUNGathering)
        case turn(TURNClient)
    }

    struct Server {
        let url: ICEServerURL
        let username: String?
        let credential: String?
        var address: SocketAddress?
        var kind: ServerKind?
        var stream: TURNStreamConnection?
        var done = false
    }

    var servers: [Server] = []
    var locals: [Local] = []
    var remotes: [Remote] = []
    var checkList: ICECheckList?
    /// The local candidate each valid pair showed (server-reflexive or peer-reflexive when the
    /// edge saw another address than the host's), by pair index.
    var validLocal: [Int: Int] = [:]
    var selected: Int?
    var gatheringComplete = false
    var timeline: [ConnectionStateEvent] = []
    var errors: [ICECandidateErrorRecord] = []
    let tieBreaker: UInt64
    var checkingStarted: ContinuousClock.Instant?
    var disconnectedSince: ContinuousClock.Instant?
    var lastConsent: ContinuousClock.Instant?
    var nextConsent: ContinuousClock.Instant?
    var foundations: [String: String] = [:]

    init() {
        var random = SystemRandomNumberGenerator()
        tieBreaker = random.next()
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

    /// The UDP TURN server, or the STUN server still being asked, a datagram from `source`
    /// comes from. A STUN server that answered no longer claims its address: the edge's own
    /// STUN port is also its media port.
    func udpServer(for source: SocketAddress) -> Int? {
        servers.indices.first { index in
            let server = servers[index]
            guard server.stream == nil, server.url.transport == .udp, server.address == source else { return false }
            if case .stun = server.kind { return !server.done }
            return true
        }
    }

    /// The report's records of the check list's pairs.
    var pairRecords: [ICECandidatePairRecord] {
        guard let checkList else { return [] }
        return checkList.pairs.enumerated().map { index, pair in
            ICECandidatePairRecord(
                localCandidate: locals[validLocal[index] ?? pair.local].stats, remoteCandidate: remotes[pair.remote].stats,
                state: pair.state.rawValue, nominated: pair.nominated, priority: pair.priority,
                requestsSent: pair.requestsSent, responsesReceived: pair.responsesReceived,
                currentRoundTripTime: pair.roundTripTime, error: pair.error.map { "\($0)" })
        }
    }
}

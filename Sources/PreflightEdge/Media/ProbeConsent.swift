import PreflightCore

/// Whether a probe's client consents to receive the downlink at its address: the edge asks the
/// way RFC 7675 ("STUN Usage for Consent Freshness") has a sender ask its peer, because the
/// downlink is the one stream where the edge sends far more than it receives, and a check from
/// an address proves only that its sender knows the session's password, not that the address
/// receives (its source may be spoofed).
///
/// The rule, in full (a pure value: the media service's probe task drives it, with time as a
/// parameter):
/// - **Whom.** The session's peer: the address of the client's nominating check. A request goes
///   to that address only; another peer starts over, with no consent until it answers.
/// - **The request.** A Binding request with USERNAME `clientUfrag:edgeUfrag`, PRIORITY,
///   ICE-CONTROLLED, MESSAGE-INTEGRITY keyed with the client's ICE password and FINGERPRINT,
///   under a fresh random 96-bit transaction ID (``ask(_:now:)``). The client's ICE agent, a
///   full agent, answers it as it answers any check (RFC 8445 §7.3).
/// - **Consent.** A Binding success response from that very address with the transaction ID of
///   one of the last ``remembered`` requests, whose MESSAGE-INTEGRITY verifies with the client's
///   password (``answer(_:from:now:)``; the integrity is checked by the caller). A third party
///   never saw the transaction ID, and a STUN server or another ICE agent at the address cannot
///   sign with the client's password, so only the client itself grants consent.
/// - **Downlink.** A probe packet goes only to the address that granted consent, and only within
///   ``freshness`` of the last grant (``allows(_:now:)``). A spoofed datagram from the address
///   keeps nothing alive.
/// - **Pace.** A request is due every ``interval`` while a downlink may run (``isDue(for:now:)``):
///   with a 3 s freshness, two lost answers in a row still keep the train going.
/// - **Cost.** Each request is charged to the address's ``SendBudget`` like any datagram the edge
///   sends, so a client pays for the next request with its answer to the last; only the first
///   request to a verified address may go beyond the budget (``MediaService/VerifiedPeer``'s
///   one-datagram allowance). An address that never answers gets that one request, and a further
///   one a second only as long as datagrams from it (which a spoofer could send) pay for them,
///   one for one: never more than it sent.
struct ProbeConsent: Sendable {
    /// Seconds between requests while a downlink may run.
    static let interval = 1.0
    /// How long a grant lets probe packets go, seconds.
    static let freshness = 3.0
    /// Requests whose answers are still taken (a late answer to the one before the last counts).
    static let remembered = 3

    /// The address consent is asked of (and, once it answers, granted by).
    private(set) var address: SourceKey?
    /// When that address last granted consent, seconds.
    private(set) var grantedAt: Double?
    /// When the last request went (or was due but the budget held it back), seconds.
    private(set) var askedAt: Double?
    /// When ``address`` was first asked, seconds.
    private(set) var firstAskedAt: Double?
    /// The newest requests' transaction IDs and nonces, oldest first.
    private(set) var outstanding: [(transactionID: STUNTransactionID, nonce: [UInt8])] = []

    init() {}

    /// Whether a request is due now for the peer at `peer`: at once for a new peer (one that has
    /// not been asked yet), then every ``interval``.
    func isDue(for peer: SourceKey, now: Double) -> Bool {
        guard address == peer, let askedAt else { return true }
        return now - askedAt >= Self.interval
    }

    /// Records a request sent to `peer` under `transactionID` with `nonce` at `now`, or (`nil`)
    /// one that was due but not sent (the address's budget held it back): the next is due an
    /// ``interval`` later either way. A request to another address than the last forgets the
    /// earlier address's consent.
    mutating func ask(_ peer: SourceKey, transactionID: STUNTransactionID?, nonce: [UInt8] = [], now: Double) {
        if address != peer {
            address = peer
            grantedAt = nil
            outstanding.removeAll()
            firstAskedAt = now
        }
        if let transactionID {
            outstanding.append((transactionID, nonce))
            if outstanding.count > Self.remembered { outstanding.removeFirst(outstanding.count - Self.remembered) }
        }
        askedAt = now
    }

    /// The nonce the answer to `transactionID` from `source` must echo, when it answers an
    /// outstanding request: the caller then checks the echo and the integrity and calls
    /// ``grant(_:now:)``.
    func nonce(awaitedFor transactionID: STUNTransactionID, from source: SourceKey) -> [UInt8]? {
        guard address == source else { return nil }
        return outstanding.first { $0.transactionID == transactionID }?.nonce
    }

    /// An answer to `transactionID` that verified came at `now`: consent is granted (each
    /// request's answer counts once).
    mutating func grant(_ transactionID: STUNTransactionID, now: Double) {
        guard let index = outstanding.firstIndex(where: { $0.transactionID == transactionID }) else { return }
        outstanding.remove(at: index)
        grantedAt = max(grantedAt ?? now, now)
    }

    /// Whether a downlink packet may go to `peer` at `now`.
    func allows(_ peer: SourceKey, now: Double) -> Bool {
        guard address == peer, let grantedAt else { return false }
        return now - grantedAt <= Self.freshness
    }

    /// Whether the edge is still waiting for `peer`'s first answer, asked less than
    /// ``freshness`` ago: a train then waits for it instead of being dropped.
    func isAwaitingFirstAnswer(from peer: SourceKey, now: Double) -> Bool {
        guard address == peer, grantedAt == nil, let firstAskedAt else { return false }
        return now - firstAskedAt < Self.freshness
    }
}

extension ICEAgent {
    /// Loss probes on the selected pair: their schedule and their fates.
    struct LossProbes: Sendable {
        /// The pair they go on; probing stops when media leaves it.
        var pair: Int
        var remaining: Int
        var interval: Double
        var next: Double
        var fates = ProbeFates()
    }

    /// The most loss probes one call of ``startLossProbes(count:interval:now:)`` sends: 500.
    public static let maximumLossProbes = 500
    /// The shortest interval between loss probes: 10 ms.
    public static let shortestLossProbeInterval = 0.01

    /// Sends `count` loss probes on the selected pair, the first now and then one every
    /// `interval` seconds: STUN Binding requests like consent checks (RFC 7675), each sent once,
    /// whose answers prove a round trip. Their fates (``lossProbeFates``) are evidence of the
    /// path's loss beside the media's own (an adaptive test's first seconds: docs/measurement.md,
    /// "Loss probes"). Probing stops when the selected pair changes or media is lost; the probes
    /// then undecided are forgotten. Nothing is sent before a pair is selected.
    ///
    /// At most ``maximumLossProbes`` probes, at least ``shortestLossProbeInterval`` apart; a new
    /// call replaces the schedule (the fates so far are kept).
    public mutating func startLossProbes(count: Int, interval: Double, now: Double) {
        guard phase == .connected, disconnectedSince == nil, let selected, interval.isFinite else { return }
        var probes = LossProbes(
            pair: selected, remaining: min(max(0, count), Self.maximumLossProbes),
            interval: max(interval, Self.shortestLossProbeInterval), next: now)
        if let fates = lossProbes?.fates { probes.fates = fates }
        lossProbes = probes
        pollLossProbes(now: now)
    }

    /// The loss probes' fates so far (empty when none was sent).
    public var lossProbeFates: ProbeFates { lossProbes?.fates ?? ProbeFates() }

    /// Sends the probe due.
    mutating func pollLossProbes(now: Double) {
        guard var probes = lossProbes, probes.remaining > 0, now >= probes.next, let remoteParameters else { return }
        guard phase == .connected, disconnectedSince == nil, selected == probes.pair else { return stopLossProbes() }
        // One at a time: a late poll does not send a burst. The transaction ID from the system's
        // generator, as the checks' (an answer is taken for an awaited ID, errors unsigned).
        let id = STUNTransactionID.random()
        if sendCheck(on: probes.pair, transactionID: id, useCandidate: false, remote: remoteParameters) {
            probes.fates.recordSent(id, at: now)
        }
        probes.remaining -= 1
        probes.next += probes.interval
        if probes.next <= now { probes.next = now + probes.interval }
        lossProbes = probes
    }

    /// Media left the probes' pair (another was selected, or it was lost): probing stops.
    mutating func stopLossProbes() {
        guard lossProbes != nil else { return }
        lossProbes?.remaining = 0
        lossProbes?.fates.abandonPending()
    }

    /// A response to a loss probe still undecided, from where the probe went: the round trip was
    /// made. An error response counts as well (the path carried the probe and its answer); a
    /// success response must verify with the remote password.
    /// - Returns: whether `message` answered a probe (else it is not one).
    mutating func handleProbeAnswer(_ message: STUNMessage, path: Path, source: TransportAddress, now: Double) -> Bool {
        guard var probes = lossProbes, probes.fates.isAwaited(message.transactionID) else { return false }
        guard let checkList, checkList.pairs.indices.contains(probes.pair), let remoteParameters else { return true }
        let pair = checkList.pairs[probes.pair]
        guard locals[pair.local].path == path, remotes[pair.remote].address == source else { return true }
        switch message.type.messageClass {
        case .successResponse:
            guard (try? message.verifyIntegrity(key: STUNIntegrityKey(Array(remoteParameters.pwd.utf8)))) != nil,
                (try? message.verifyFingerprint()) != nil
            else { return true }
            // A verified answer on the selected pair is consent too (RFC 7675 §5.1).
            lastConsent = now
            lastReceived = now
        case .errorResponse:
            break
        default:
            return true
        }
        probes.fates.recordAnswer(message.transactionID)
        lossProbes = probes
        return true
    }
}

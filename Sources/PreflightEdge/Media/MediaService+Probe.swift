import NIOCore
import PreflightCore
import Synchronization

extension MediaService {
    /// Accepts checks for a last-mile probe's session: its pings (PCMU) are echoed as an echo
    /// session's, its uplink probe packets (``ProbePacket``) are recorded for
    /// ``takeProbeArrivals(localUfrag:)``, and ``runProbeDownlink(localUfrag:)`` sends the trains
    /// ``startProbeTrain(localUfrag:_:)`` asks for, to a peer that consents (``ProbeConsent``).
    /// - Parameters:
    ///   - clientPassword: the client's ICE password (its `probe`'s `ice.pwd`): the edge's
    ///     consent requests carry a MESSAGE-INTEGRITY with it, and their answers must verify with it.
    ///   - expectedUplinkBitrate: bps; the client's uplink probe packets may then arrive at twice
    ///     this rate (64 KB burst) instead of the per-source packet limit. `nil`: no uplink probe.
    ///   - expectedDownlinkBitrate: bps; trains may run at up to twice this rate, and the
    ///     downlink may spend 12 s of it in bytes. `nil`: no downlink probe.
    public func addProbeSession(
        _ credentials: ICELiteCredentials, clientPassword: String, expectedUplinkBitrate: Int?, expectedDownlinkBitrate: Int?
    ) {
        let key = STUNIntegrityKey(Array(credentials.localPassword.utf8))
        var random = SystemRandomNumberGenerator()
        var session = Session(
            credentials: credentials, key: key, application: .echo, format: .pcmu, ssrc: random.next(), sequence: random.next())
        session.probe = ProbeSession(
            expectedUplink: expectedUplinkBitrate, expectedDownlink: expectedDownlinkBitrate, clientPassword: clientPassword, now: now)
        session.isProbe = true
        session.probesUplink = expectedUplinkBitrate != nil
        state.withLock { $0.sessions[credentials.localUfrag] = session }
    }

    /// Starts (or replaces) the downlink train of a probe session: from now on packets of
    /// `train.size` bytes at `train.rate` bps for `train.duration` ms, continuing the pacing
    /// deadlines of the train before. Rate 0 stops.
    /// - Throws: 70302 when the session is not a probe with a downlink, or the train asks for a
    ///   rate over twice the expected downlink bitrate, a size outside 200…1200 bytes or a
    ///   duration outside 0…1000 ms.
    public func startProbeTrain(localUfrag: String, _ train: SignalingMessage.ProbeTrain) throws(PreflightError) {
        let now = self.now
        try state.withLock { state throws(PreflightError) in
            guard let probe = state.sessions[localUfrag]?.probe, let expected = probe.expectedDownlink else {
                throw PreflightError(code: .probeRefused, message: "probe: no downlink probe runs on this session")
            }
            let ceiling = Double(expected) * ProbeSession.downlinkRateFactor
            guard train.rate >= 0, Double(train.rate) <= ceiling else {
                throw PreflightError(
                    code: .probeRefused, message: "probe: a train of \(train.rate) bps is over \(Int(ceiling)) bps (twice the expected downlink bitrate)")
            }
            guard (ProbePacket.minimumSize...ProbePacket.maximumSize).contains(train.size),
                (0...ProbeSession.maximumTrainDuration).contains(train.duration)
            else {
                throw PreflightError(
                    code: .probeRefused,
                    message: "probe: a train's size must be \(ProbePacket.minimumSize)…\(ProbePacket.maximumSize) bytes and its duration 0…\(ProbeSession.maximumTrainDuration) ms, got \(train.size) and \(train.duration)")
            }
            state.sessions[localUfrag]?.probe?.train =
                train.rate == 0 ? nil : (Double(train.rate), train.size, now + Double(train.duration) / 1000)
        }
    }

    /// The uplink arrival records since the last take; `nil` when there are none (and none dropped).
    public func takeProbeArrivals(localUfrag: String) -> SignalingMessage.ProbeArrivals? {
        state.withLock { state in
            guard var probe = state.sessions[localUfrag]?.probe, !probe.records.isEmpty || probe.droppedRecords > 0 else { return nil }
            let count = min(probe.records.count, SignalingMessage.ProbeArrivals.maximumRecords * 3)
            let batch = SignalingMessage.ProbeArrivals(records: Array(probe.records[..<count]), dropped: probe.droppedRecords)
            probe.records.removeFirst(count)
            probe.droppedRecords = 0
            state.sessions[localUfrag]?.probe = probe
            return batch
        }
    }

    /// Sends a probe session's downlink trains until the session ends or the task is cancelled:
    /// each packet on its absolute deadline (``ProbePacer``), only to the session's verified peer,
    /// only while that peer consents (``ProbeConsent``: the task asks it every second), and only
    /// while the byte budget lasts.
    /// - Returns: the probe packets sent.
    public func runProbeDownlink(localUfrag: String) async -> Int {
        let clock = ContinuousClock()
        let origin = clock.now
        let startSeconds = now
        var sent = 0
        while !Task.isCancelled {
            // One lock: what to send now, or how long to wait.
            let step = state.withLock { state -> ProbeStep in
                guard state.sessions[localUfrag]?.probe != nil else { return .end }
                let now = self.now
                if let request = consentRequest(localUfrag: localUfrag, state: &state, now: now) { return request }
                guard var probe = state.sessions[localUfrag]?.probe else { return .end }
                guard let train = probe.train, train.until > now else {
                    probe.train = nil
                    probe.pacer.reset()
                    state.sessions[localUfrag]?.probe = probe
                    return .idle
                }
                let due = probe.pacer.due(now: now)
                guard due <= now else { return .wait(due) }
                return send(train: train, localUfrag: localUfrag, state: &state, now: now)
            }
            switch step {
            case .end:
                return sent
            case .idle:
                guard (try? await Task.sleep(for: .milliseconds(5))) != nil else { return sent }
            case .wait(let due):
                let instant = origin + .nanoseconds(Int64(max(0, due - startSeconds) * 1e9))
                guard (try? await Task.sleep(until: instant, clock: clock)) != nil else { return sent }
            case .sent(let outlet, let bytes, let peer, let isProbePacket):
                if outlet.send(bytes, to: peer) { datagramsSent.add(1, ordering: .relaxed) }
                if isProbePacket { sent += 1 }
            case .withheld:
                guard (try? await Task.sleep(for: .milliseconds(20))) != nil else { return sent }
            }
        }
        return sent
    }

    enum ProbeStep {
        case end, idle, withheld
        case wait(Double)
        case sent(MediaOutlet, [UInt8], to: SocketAddress, isProbePacket: Bool)
    }

    /// The session's verified peer: the address of its nominating check, while that address is
    /// still verified for this session.
    private func verifiedPeer(of localUfrag: String, in state: State) -> (address: SocketAddress, key: SourceKey)? {
        guard let peer = state.sessions[localUfrag]?.peer, let key = SourceKey(peer), state.verified[key]?.ufrag == localUfrag
        else { return nil }
        return (peer, key)
    }

    /// The consent request due now for a probe session with a downlink, if one is due and the
    /// peer's send budget (or its one request beyond it) allows it.
    private func consentRequest(localUfrag: String, state: inout State, now: Double) -> ProbeStep? {
        guard let outlet = state.outlet, let session = state.sessions[localUfrag], let probe = session.probe,
            probe.expectedDownlink != nil, let (peer, key) = verifiedPeer(of: localUfrag, in: state),
            probe.consent.isDue(for: key, now: now)
        else { return nil }
        let transactionID = STUNTransactionID.random()
        var random = SystemRandomNumberGenerator()
        let nonce = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
        let request = STUNMessage(
            type: STUNMessageType(method: .binding, class: .request), transactionID: transactionID,
            attributes: [
                .username("\(session.credentials.remoteUfrag):\(session.credentials.localUfrag)"),
                .priority(ICECandidate.priority(typePreference: 126, localPreference: 65535, component: 1)),
                .iceControlled(random.next()),
                .unknown(type: STUNAttributeType.consentNonce.rawValue, value: nonce[...]),
            ])
        guard let bytes = try? request.encoded(integrityKey: probe.clientKey, fingerprint: true) else { return nil }
        var sendsNow = state.verified[key]?.budget.spend(bytes: bytes.count) ?? false
        if !sendsNow, state.verified[key]?.mayAskBeyondBudget == true {
            state.verified[key]?.mayAskBeyondBudget = false
            sendsNow = true
        }
        state.sessions[localUfrag]?.probe?.consent.ask(key, transactionID: sendsNow ? transactionID : nil, nonce: nonce, now: now)
        guard sendsNow else {
            state.counters.consentRequestsWithheld += 1
            return nil
        }
        state.counters.consentRequestsSent += 1
        return .sent(outlet, bytes, to: peer, isProbePacket: false)
    }

    /// Builds the next downlink packet of a train if the peer consents and the budget allows;
    /// waits while the peer's first answer may still come; else drops the train.
    private func send(train: (rate: Double, size: Int, until: Double), localUfrag: String, state: inout State, now: Double) -> ProbeStep {
        guard let outlet = state.outlet, var session = state.sessions[localUfrag], var probe = session.probe else { return .end }
        let peer = verifiedPeer(of: localUfrag, in: state)
        if let peer, probe.consent.isAwaitingFirstAnswer(from: peer.key, now: now) {
            return .wait(now + 0.005)
        }
        let wire = train.size + ProbePacket.wireOverhead(ipv6: peer?.address.protocol == .inet6)
        guard let peer, probe.consent.allows(peer.key, now: now), probe.downlinkBudget >= wire,
            let bytes = ProbePacket.encode(
                sequence: probe.sequence, sendMicroseconds: Self.microseconds(now), ssrc: session.ssrc, size: train.size, fromEdge: true)
        else {
            // No verified peer, no fresh consent, or the budget is spent: the train is dropped.
            probe.train = nil
            probe.pacer.reset()
            session.probe = probe
            state.sessions[localUfrag] = session
            state.counters.probePacketsWithheld += 1
            return .withheld
        }
        probe.sequence &+= 1
        probe.downlinkBudget -= wire
        probe.pacer.sent(wireBytes: wire, rate: train.rate, now: now)
        session.probe = probe
        state.sessions[localUfrag] = session
        state.counters.probePacketsSent += 1
        return .sent(outlet, bytes, to: peer.address, isProbePacket: true)
    }
}

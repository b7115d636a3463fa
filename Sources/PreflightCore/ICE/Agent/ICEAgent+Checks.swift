extension ICEAgent {
    /// The remote candidates arrived: TURN channels are bound to them, the check list formed,
    /// and checking starts. Call it once gathering is complete.
    /// - Throws: ``PreflightError`` `.mediaConnectionFailed` when no remote candidate can be
    ///   reached from the agent's sockets or no pair can be formed (the agent has then failed).
    public mutating func connect(remote parameters: ICEParameters, now: Double) throws(PreflightError) {
        guard phase == .gathered || phase == .gathering else { return }
        if phase == .gathering { finishGathering(now: now) }
        remoteParameters = parameters
        for candidate in parameters.candidates {
            guard candidate.transport == "udp", let address = TransportAddress(host: candidate.address, port: candidate.port),
                sockets[Self.socket(for: address)] != nil
            else { continue }
            remotes.append(Remote(candidate: candidate, address: address, stats: Self.stats(of: candidate, isRemote: true)))
        }
        guard !remotes.isEmpty else {
            let error = PreflightError(
                code: .mediaConnectionFailed,
                message: "ICE: \(configuration.peerName) offered no UDP candidate this host can reach (\(parameters.candidates.map(\.sdpAttribute)))")
            fail(error, now: now)
            throw error
        }
        for index in servers.indices {
            guard case .turn(var client) = servers[index].kind, client.relayedAddress != nil else { continue }
            for remote in remotes {
                if let bytes = client.channelBind(peer: remote.address, now: now) { sendToServer(ServerID(index: index), bytes) }
            }
            servers[index].kind = .turn(client)
        }
        let checkList = ICECheckList(local: localCandidates, remote: remotes.map(\.candidate), configuration: configuration.checks)
        guard !checkList.pairs.isEmpty else {
            let error = PreflightError(
                code: .mediaConnectionFailed,
                message: "ICE: no candidate pair to check: \(locals.isEmpty ? "no local candidate was gathered" : "no local candidate matches \(configuration.peerName)'s") \(gatheringSummary)")
            fail(error, now: now)
            throw error
        }
        self.checkList = checkList
        checkingStarted = now
        checkDeadline = now + configuration.checkTimeout.inSeconds
        phase = .checking
        mark(.iceConnectionState, "checking", now: now)
        pollChecks(now: now)
    }

    /// Time passed: retransmissions, checks, consent, and the timeouts. Call it at
    /// ``nextDeadline`` (earlier or more often does no harm).
    public mutating func poll(now: Double) {
        switch phase {
        case .new, .failed, .closed:
            return
        case .gathering, .gathered:
            pollGathering(now: now)
        case .checking, .connected:
            pollGathering(now: now)
            pollChecks(now: now)
            pollLossProbes(now: now)
            if phase == .checking, let deadline = checkDeadline, now >= deadline {
                fail(failure("no candidate pair was selected within the ICE timeout of \(configuration.checkTimeout)"), now: now)
            }
            checkLiveness(now: now)
        }
    }

    /// The route of a pair's datagrams.
    func route(pair index: Int) -> Route? {
        guard let checkList, checkList.pairs.indices.contains(index) else { return nil }
        let pair = checkList.pairs[index]
        return route(path: locals[pair.local].path, to: remotes[pair.remote].address)
    }

    /// The route to `remote` from a local candidate's `path`: straight from the socket, or
    /// through the relay.
    func route(path: Path, to remote: TransportAddress) -> Route? {
        switch path {
        case .socket(let socket):
            return Route(transport: .udp(socket, to: remote))
        case .relay(let server):
            let entry = servers[server.index]
            guard case .turn(let client) = entry.kind else { return nil }
            let transport: Transport
            if entry.isStream {
                transport = .stream(server)
            } else if let address = entry.address {
                transport = .udp(serverSocket(server, to: address), to: address)
            } else {
                return nil
            }
            return Route(transport: transport, peer: remote, channel: client.channels[remote], isStream: entry.isStream)
        }
    }

    /// Sends what the check list asks for: new checks, retransmissions, and consent checks.
    mutating func pollChecks(now: Double) {
        guard var checkList, let remoteParameters else { return }
        var checks = checkList.poll(now: now)
        if let next = nextConsent, now >= next {
            // None while the selected pair's network is gone: the next is scheduled all the same.
            if let consent = checkList.consentCheck(now: now) { checks.append(consent) }
            scheduleConsent(now: now)
        }
        self.checkList = checkList
        for check in checks {
            sendCheck(on: check.pair, transactionID: check.transactionID, useCandidate: check.useCandidate, remote: remoteParameters)
        }
        if phase == .checking, checkList.hasFailed, isGatheringComplete {
            fail(failure("every candidate pair failed its connectivity checks"), now: now)
        }
    }

    /// Sends a Binding request on pair `index` (a check, a consent check or a loss probe).
    /// - Returns: whether it went out.
    @discardableResult
    mutating func sendCheck(on index: Int, transactionID: STUNTransactionID, useCandidate: Bool, remote remoteParameters: ICEParameters) -> Bool {
        guard let checkList, checkList.pairs.indices.contains(index) else { return false }
        let local = locals[checkList.pairs[index].local]
        // PRIORITY: what a peer-reflexive candidate learned from this check would get.
        var attributes: [STUNAttribute] = [
            .username("\(remoteParameters.ufrag):\(localUfrag)"),
            .priority(ICECandidate.priority(
                typePreference: local.candidate.type == .relay ? 0 : 110, localPreference: local.candidate.localPreference,
                component: configuration.component)),
            .iceControlling(tieBreaker),
        ]
        if useCandidate { attributes.append(.useCandidate) }
        let request = STUNMessage(type: .bindingRequest, transactionID: transactionID, attributes: attributes)
        let key = STUNIntegrityKey(Array(remoteParameters.pwd.utf8))
        guard let bytes = try? request.encoded(integrityKey: key, fingerprint: true), let route = route(pair: index),
            let framed = route.frame(bytes)
        else { return false }
        transmit(framed, route.transport)
        return true
    }

    /// The next consent check: randomized to 0.8–1.2 of the interval (RFC 7675 §5.1); a quarter
    /// of it while disconnected.
    mutating func scheduleConsent(now: Double) {
        let base = configuration.consentInterval.inSeconds * (disconnectedSince == nil ? 1 : 0.25)
        nextConsent = now + base * Double.random(in: 0.8...1.2, using: &random)
    }

    /// A STUN response on `path` from `source` that may answer a check.
    mutating func handleCheckResponse(_ message: STUNMessage, path: Path, source: TransportAddress, now: Double) {
        if handleProbeAnswer(message, path: path, source: source, now: now) { return }
        guard var checkList, let pairIndex = checkList.pair(of: message.transactionID), let remoteParameters else { return }
        let pair = checkList.pairs[pairIndex]
        // RFC 8445 §7.2.5.2.1: the response must come back the way the request went.
        guard locals[pair.local].path == path, remotes[pair.remote].address == source else { return }
        switch message.type.messageClass {
        case .errorResponse:
            _ = checkList.handleError(message.transactionID, error: message.errorCode)
            self.checkList = checkList
            if phase == .checking, checkList.hasFailed, isGatheringComplete {
                fail(failure("\(configuration.peerName) refused the connectivity checks (\(message.errorCode.map { "\($0)" } ?? "error"))"), now: now)
            }
        case .successResponse:
            guard (try? message.verifyIntegrity(key: STUNIntegrityKey(Array(remoteParameters.pwd.utf8)))) != nil,
                (try? message.verifyFingerprint()) != nil
            else { return }
            let outcome = checkList.handleSuccess(message.transactionID, mappedAddress: message.xorMappedAddress, now: now)
            self.checkList = checkList
            switch outcome {
            case .validated(let index):
                learnLocal(pair: index, mapped: message.xorMappedAddress, now: now)
                pollChecks(now: now)
            case .selected(let index):
                learnLocal(pair: index, mapped: message.xorMappedAddress, now: now)
                select(index, now: now)
            case .consent:
                lastConsent = now
                lastReceived = now
            case .failed, nil:
                break
            }
        default:
            return
        }
    }

    /// The nomination of pair `index` succeeded: media goes on it.
    mutating func select(_ index: Int, now: Double) {
        guard let checkList, phase == .checking || phase == .connected else { return }
        let pair = checkList.pairs[index]
        let wasSelected = selected != nil
        // The same pair nominated again (a new network's pairs did not beat it): nothing changed.
        if selected == index, disconnectedSince == nil, phase == .connected {
            lastConsent = now
            lastReceived = now
            return
        }
        if selected != index { stopLossProbes() }
        selected = index
        let local = locals[validLocal[index] ?? pair.local].stats
        let remote = remotes[pair.remote].stats
        let stats = ICECandidatePairStats(localCandidate: local, remoteCandidate: remote)
        selectedPair = stats
        lastConsent = now
        lastReceived = now
        phase = .connected
        mark(.iceConnectionState, "connected", now: now)
        mark(.iceCandidate, "selected-ice-candidate-pair",
            detail: "\(local.candidateType) \(local.ip):\(local.port) → \(remote.candidateType) \(remote.ip):\(remote.port)", now: now)
        if disconnectedSince != nil {
            disconnectedSince = nil
            scheduleConsent(now: now)
            emit(.reconnected(stats, at: now))
        } else {
            scheduleConsent(now: now)
            emit(wasSelected ? .pairChanged(stats, at: now) : .connected(stats, at: now))
        }
    }

    /// Nothing from the remote side for the disconnect timeout: disconnected, every pair is
    /// checked again; the consent timeout then fails ICE.
    ///
    /// A poll that comes more than ``livenessLateness`` after that timeout's deadline means the
    /// driver could not run (its loop or the whole process stalled: a busy machine): datagrams
    /// that arrived meanwhile may still wait in the socket, unread. The silence is then judged
    /// ``livenessGrace`` later, once the driver has read them; a poll on time judges at once.
    mutating func checkLiveness(now: Double) {
        guard phase == .connected, watchesLiveness, let last = lastReceived else { return }
        let deadline = last + configuration.disconnectTimeout.inSeconds
        if disconnectedSince == nil, now >= deadline {
            if let graceEnds = livenessGraceEnds, graceEnds > deadline {
                guard now >= graceEnds else { return }
            } else if now - deadline > Self.livenessLateness {
                livenessGraceEnds = now + Self.livenessGrace
                return
            }
            livenessGraceEnds = nil
            disconnect(because: "nothing received from \(configuration.peerName) for \(configuration.disconnectTimeout)", now: now)
        }
        if disconnectedSince != nil, let consent = lastConsent, now >= consent + configuration.consentTimeout.inSeconds {
            fail(PreflightError(
                code: .mediaConnectionFailed,
                message: "ICE: consent expired: no answer on the selected pair for \(configuration.consentTimeout) (RFC 7675), and no other pair answered"),
                now: now)
        }
    }

    /// How late a poll may come after the disconnect timeout's deadline and still judge the
    /// silence at once (seconds).
    static let livenessLateness = 0.25
    /// How long a late poll waits before it judges the silence (seconds).
    static let livenessGrace = 0.25

    /// Media is lost (`why`): disconnected, every live pair is checked again at once and the
    /// best that answers nominated; the consent timeout then fails ICE.
    mutating func disconnect(because why: String, now: Double) {
        guard phase == .connected, disconnectedSince == nil else { return }
        disconnectedSince = now
        stopLossProbes()
        mark(.iceConnectionState, "disconnected", now: now)
        let error = PreflightError(code: .mediaConnectionFailed, message: "media: \(why); checking every candidate pair again")
        emit(.disconnected(error, at: now))
        checkList?.restart(now: now)
        nextConsent = now
        // The first checks go now, not at the next deadline.
        pollChecks(now: now)
    }

    /// The remote side falls silent on purpose from now on (the media ended): silence no longer
    /// disconnects. Consent checks go on.
    public mutating func stopWatchingLiveness() {
        watchesLiveness = false
    }

    /// Ends the agent politely: TURN allocations are deleted (Refresh with lifetime 0) and the
    /// stream connections closed. Nothing more is sent or delivered.
    public mutating func close(now: Double) {
        guard phase != .closed else { return }
        for index in servers.indices {
            let id = ServerID(index: index)
            if case .turn(var client) = servers[index].kind {
                if let bytes = client.refresh(lifetime: 0, now: now) { sendToServer(id, bytes) }
                servers[index].kind = .turn(client)
            }
            if servers[index].isStream { outputs.append(.closeStream(id)) }
        }
        phase = .closed
    }
}

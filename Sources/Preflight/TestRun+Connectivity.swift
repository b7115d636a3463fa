internal import NIOCore
import Logging
internal import PreflightCore
internal import PreflightNIO

extension TestRun.Loop {
    // MARK: Checks

    /// The answer's candidates arrived: binds TURN channels to them, forms the check list and
    /// starts checking.
    mutating func startChecks(_ answer: ICEParameters, in group: inout TaskGroup<Void>) throws(PreflightError) {
        for candidate in answer.candidates {
            guard candidate.transport == "udp", let address = try? SocketAddress(ipAddress: candidate.address, port: Int(candidate.port)),
                address.protocol == .inet || (address.protocol == .inet6 && socket6 != nil),
                let transport = TransportAddress(host: candidate.address, port: candidate.port)
            else { continue }
            agent.remotes.append(ICEAgentState.Remote(
                candidate: candidate, address: address, transportAddress: transport, stats: Self.stats(of: candidate, isRemote: true)))
        }
        guard !agent.remotes.isEmpty else {
            throw PreflightError(
                code: .mediaConnectionFailed,
                message: "ICE: the edge offered no UDP candidate this host can reach (\(answer.candidates.map(\.sdpAttribute)))")
        }
        let now = clock.now
        for index in agent.servers.indices {
            guard case .turn(var client) = agent.servers[index].kind, client.relayedAddress != nil else { continue }
            for remote in agent.remotes {
                if let bytes = client.channelBind(peer: remote.transportAddress, now: seconds(now)) { sendToServer(index, bytes) }
            }
            agent.servers[index].kind = .turn(client)
        }
        let checkList = ICECheckList(local: agent.locals.map(\.candidate), remote: agent.remotes.map(\.candidate))
        guard !checkList.pairs.isEmpty else {
            throw PreflightError(
                code: .mediaConnectionFailed,
                message: "ICE: no candidate pair to check: \(agent.locals.isEmpty ? "no local candidate was gathered" : "no local candidate matches the edge's") \(gatheringSummary)")
        }
        agent.checkList = checkList
        agent.checkingStarted = now
        mark(.iceConnectionState, "checking")
        mark(.peerConnectionState, "connecting")
        phase = .checking
        after(run.options.iceTimeout, .deadline(.ice), in: &group)
        try pollChecks(now: now)
    }

    /// What gathering found, for error messages: candidates by type and the servers that failed.
    var gatheringSummary: String {
        let types = Dictionary(grouping: agent.locals, by: \.stats.candidateType.rawValue).map { "\($0.value.count) \($0.key)" }.sorted()
        let failures = agent.errors.map { "\($0.url): \($0.errorCode) \($0.errorText)" }
        return "(gathered: \(types.isEmpty ? "none" : types.joined(separator: ", "))"
            + (failures.isEmpty ? "" : "; servers: \(failures.joined(separator: "; "))") + ")"
    }

    /// The route of a pair's datagrams.
    func mediaRoute(pair index: Int) -> MediaRoute? {
        guard let checkList = agent.checkList, checkList.pairs.indices.contains(index) else { return nil }
        let pair = checkList.pairs[index]
        let local = agent.locals[pair.local]
        let remote = agent.remotes[pair.remote]
        switch local.path {
        case .direct:
            return MediaRoute(socket: socket, remote: remote.address, relay: nil, channel: nil, peer: nil)
        case .direct6:
            guard let socket6 else { return nil }
            return MediaRoute(socket: socket6, remote: remote.address, relay: nil, channel: nil, peer: nil)
        case .relay(let server):
            let entry = agent.servers[server]
            guard case .turn(let client) = entry.kind else { return nil }
            let relay: MediaRoute.Relay
            if let stream = entry.stream {
                relay = .stream(stream)
            } else if let address = entry.address {
                relay = .udp(socket, server: address)
            } else {
                return nil
            }
            return MediaRoute(
                socket: socket, remote: remote.address, relay: relay, channel: client.channels[remote.transportAddress],
                peer: remote.transportAddress)
        }
    }

    /// Sends what the check list asks for: new checks, retransmissions, and consent checks.
    mutating func pollChecks(now: ContinuousClock.Instant) throws(PreflightError) {
        guard var checkList = agent.checkList else { return }
        var checks = checkList.poll(now: seconds(now))
        if let next = agent.nextConsent, now >= next, let consent = checkList.consentCheck(now: seconds(now)) {
            checks.append(consent)
            // RFC 7675 §5.1: randomized to 0.8–1.2 of the interval; faster while disconnected.
            let base = agent.disconnectedSince == nil ? 2.0 : 0.5
            agent.nextConsent = now + .milliseconds(Int64(base * Double.random(in: 800...1200)))
        }
        agent.checkList = checkList
        let key = STUNIntegrityKey(Array((remoteICE?.pwd ?? "").utf8))
        for check in checks {
            let pair = checkList.pairs[check.pair]
            let local = agent.locals[pair.local]
            let remoteUfrag = remoteICE?.ufrag ?? ""
            // PRIORITY: what a peer-reflexive candidate learned from this check would get.
            let preference = local.candidate.localPreference
            var attributes: [STUNAttribute] = [
                .username("\(remoteUfrag):\(localUfrag)"),
                .priority(ICECandidate.priority(typePreference: local.candidate.type == .relay ? 0 : 110, localPreference: preference, component: 1)),
                .iceControlling(agent.tieBreaker),
            ]
            if check.useCandidate { attributes.append(.useCandidate) }
            let request = STUNMessage(type: .bindingRequest, transactionID: check.transactionID, attributes: attributes)
            guard let bytes = try? request.encoded(integrityKey: key, fingerprint: true) else { continue }
            mediaRoute(pair: check.pair)?.send(bytes)
        }
        if phase == .checking, checkList.hasFailed, agent.gatheringComplete {
            throw iceFailure("every candidate pair failed its connectivity checks")
        }
    }

    func iceFailure(_ why: String) -> PreflightError {
        let pairs = agent.checkList?.pairs.map { pair in
            "\(agent.locals[pair.local].stats.candidateType) \(agent.locals[pair.local].candidate.address):\(agent.locals[pair.local].candidate.port)"
                + " → \(agent.remotes[pair.remote].candidate.address):\(agent.remotes[pair.remote].candidate.port) \(pair.state.rawValue)"
                + (pair.error.map { " (\($0))" } ?? "")
        } ?? []
        return PreflightError(
            code: .mediaConnectionFailed,
            message: "ICE: \(why); pairs: [\(pairs.joined(separator: ", "))] \(gatheringSummary)")
    }

    /// A STUN response on `path` from `source` that may answer a check.
    mutating func handleCheckResponse(_ message: STUNMessage, path: ICEAgentState.Path, source: SocketAddress, arrival: ContinuousClock.Instant) async throws(PreflightError) {
        guard var checkList = agent.checkList, let pairIndex = checkList.pair(of: message.transactionID), let remoteICE else { return }
        let pair = checkList.pairs[pairIndex]
        // RFC 8445 §7.2.5.2.1: the response must come back the way the request went.
        guard agent.locals[pair.local].path == path, agent.remotes[pair.remote].address == source else { return }
        switch message.type.messageClass {
        case .errorResponse:
            _ = checkList.handleError(message.transactionID, error: message.errorCode)
            agent.checkList = checkList
            if phase == .checking, checkList.hasFailed, agent.gatheringComplete {
                throw iceFailure("the edge refused the connectivity checks (\(message.errorCode.map { "\($0)" } ?? "error"))")
            }
        case .successResponse:
            guard (try? message.verifyIntegrity(key: STUNIntegrityKey(Array(remoteICE.pwd.utf8)))) != nil,
                (try? message.verifyFingerprint()) != nil
            else { return }
            let outcome = checkList.handleSuccess(message.transactionID, mappedAddress: message.xorMappedAddress, now: seconds(arrival))
            agent.checkList = checkList
            switch outcome {
            case .validated(let index):
                learnLocal(pair: index, mapped: message.xorMappedAddress)
                try pollChecks(now: arrival)
            case .selected(let index):
                learnLocal(pair: index, mapped: message.xorMappedAddress)
                try select(index, at: arrival)
            case .consent:
                agent.lastConsent = arrival
                lastFromEdge = arrival
            case .failed, nil:
                break
            }
            publish()
        default:
            return
        }
    }

    /// The local candidate a valid pair shows: the one whose address the edge saw (a
    /// server-reflexive one behind a NAT), else a new peer-reflexive one (RFC 8445 §7.2.5.3.1).
    mutating func learnLocal(pair index: Int, mapped: TransportAddress?) {
        guard let checkList = agent.checkList, let mapped else { return }
        let pair = checkList.pairs[index]
        let path = agent.locals[pair.local].path
        if let match = agent.locals.indices.first(where: {
            agent.locals[$0].path == path && agent.locals[$0].candidate.address == mapped.host && agent.locals[$0].candidate.port == mapped.port
        }) {
            agent.validLocal[index] = match
            return
        }
        let base = agent.locals[pair.local]
        let preference = base.candidate.localPreference
        let priority = ICECandidate.priority(typePreference: 110, localPreference: preference, component: 1)
        let foundation = agent.foundation(type: .peerReflexive, base: base.candidate.address, server: "", transport: "udp")
        let candidate = ICECandidate(
            foundation: foundation, priority: priority, address: mapped.host, port: mapped.port, type: .peerReflexive,
            relatedAddress: base.candidate.address, relatedPort: base.candidate.port)
        addLocal(ICECandidateStats(
            candidateType: .peerReflexive, networkId: base.stats.networkId, priority: Int(priority), networkType: base.stats.networkType,
            relatedAddress: base.candidate.address, ip: mapped.host, isRemote: false, relatedPort: Int(base.candidate.port),
            port: Int(mapped.port)), candidate: candidate, path: path)
        agent.validLocal[index] = agent.locals.count - 1
    }

    /// The nomination of pair `index` succeeded: media goes on it.
    mutating func select(_ index: Int, at now: ContinuousClock.Instant) throws(PreflightError) {
        guard let checkList = agent.checkList else { return }
        let pair = checkList.pairs[index]
        let reconnect = agent.selected != nil
        agent.selected = index
        route.set(mediaRoute(pair: index))
        let local = agent.locals[agent.validLocal[index] ?? pair.local].stats
        let remote = agent.remotes[pair.remote].stats
        selectedPair = ICECandidatePairStats(localCandidate: local, remoteCandidate: remote)
        agent.lastConsent = now
        agent.nextConsent = now + .milliseconds(Int64(2000 * Double.random(in: 0.8...1.2)))
        lastFromEdge = now
        mark(.iceConnectionState, "connected", at: now)
        mark(.iceCandidate, "selected-ice-candidate-pair",
            detail: "\(local.candidateType) \(local.ip):\(local.port) → \(remote.candidateType) \(remote.ip):\(remote.port)", at: now)
        if reconnect {
            if agent.disconnectedSince != nil {
                agent.disconnectedSince = nil
                mark(.peerConnectionState, "connected", at: now)
                run.test.emit(.reconnected)
            }
            publish()
            return
        }
        phase = .media
        iceConnected = now
        let start = agent.checkingStarted ?? now
        timing.iceConnection = TimingMeasurement(startTime: wallTime(start), endTime: wallTime(now))
        publish()
        run.test.emit(.connected)
    }

    // MARK: Liveness

    /// Nothing from the edge for the media timeout: disconnected, check every pair again; the
    /// consent timeout ends the test.
    mutating func checkLiveness(now: ContinuousClock.Instant) throws(PreflightError) {
        // While the end drains, the edge falls silent by design.
        guard phase == .media, mediaEnded == nil, let last = lastFromEdge else { return }
        if agent.disconnectedSince == nil, now - last > run.options.mediaTimeout {
            agent.disconnectedSince = now
            mark(.iceConnectionState, "disconnected", at: now)
            mark(.peerConnectionState, "disconnected", at: now)
            let error = PreflightError(
                code: .mediaConnectionFailed,
                message: "media: nothing received from the edge for \(run.options.mediaTimeout); checking every candidate pair again")
            run.logger.info("ICE disconnected", metadata: ["after": "\(run.options.mediaTimeout)"])
            run.test.emit(.reconnecting(error))
            let elapsed = seconds(now)
            agent.checkList?.restart(now: elapsed)
            agent.nextConsent = now
            publish()
        }
        if agent.disconnectedSince != nil, let consent = agent.lastConsent, now - consent > run.options.consentTimeout {
            mark(.iceConnectionState, "failed", at: now)
            mark(.peerConnectionState, "failed", at: now)
            throw PreflightError(
                code: .mediaConnectionFailed,
                message: "ICE: consent expired: no answer on the selected pair for \(run.options.consentTimeout) (RFC 7675), and no other pair answered")
        }
    }

    /// Ends the ICE session politely: TURN allocations are deleted (Refresh with lifetime 0).
    mutating func closeICE() async {
        for index in agent.servers.indices {
            guard case .turn(var client) = agent.servers[index].kind else { continue }
            if let bytes = client.refresh(lifetime: 0, now: seconds(clock.now)) { sendToServer(index, bytes) }
            agent.servers[index].kind = .turn(client)
        }
        for server in agent.servers {
            if let stream = server.stream { await stream.close() }
        }
    }
}

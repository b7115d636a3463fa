extension ICEAgent {
    /// A datagram arrived on one of the agent's sockets: a STUN server's answer, a TURN server's
    /// message (relayed data among them), a check's response, or media.
    /// - Returns: whether the datagram (or what the relay carried) is media for the media session.
    public mutating func receive(_ datagram: UnsafeRawBufferPointer, from source: TransportAddress, on socket: Socket, now: Double) -> Inbound {
        guard let server = udpServer(for: source, on: socket) else {
            return inbound(datagram, path: .socket(socket), source: source, now: now)
        }
        let bytes = Array(datagram)
        switch servers[server.index].kind {
        case .turn:
            return fromTURNServer(server, bytes, now: now)
        case .stun(let gathering):
            guard let message = try? STUNMessage(decoding: bytes), message.transactionID == gathering.transactionID else {
                // A STUN server's port may also be a media port (the edge's is): the rest is media.
                return inbound(datagram, path: .socket(socket), source: source, now: now)
            }
            guard !servers[server.index].done else { return .consumed }
            servers[server.index].done = true
            if message.type.messageClass == .successResponse, let mapped = message.reflexiveAddress {
                addReflexive(mapped, url: servers[server.index].url.description, socket: socket, now: now)
            } else {
                serverFailed(
                    server, code: message.errorCode?.code ?? ICECandidateErrorRecord.unreachable,
                    text: message.errorCode?.reason ?? "no mapped address in the response", now: now)
            }
            finishGatheringIfDone(now: now)
            return .consumed
        case nil:
            return inbound(datagram, path: .socket(socket), source: source, now: now)
        }
    }

    /// A message arrived on the stream connection to a TURN server.
    public mutating func receive(streamMessage bytes: [UInt8], from server: ServerID, now: Double) -> Inbound {
        guard servers.indices.contains(server.index) else { return .consumed }
        return fromTURNServer(server, bytes, now: now)
    }

    /// The UDP TURN server, or the STUN server still being asked, a datagram from `source` on
    /// `socket` comes from (a server asked from a network's socket answers there). A STUN server
    /// that answered no longer claims its address: the edge's own STUN port is also its media
    /// port.
    func udpServer(for source: TransportAddress, on socket: Socket) -> ServerID? {
        servers.indices.first { index in
            let server = servers[index]
            guard !server.isStream, server.url.transport == .udp, server.address == source,
                serverSocket(ServerID(index: index), to: source) == socket
            else { return false }
            if case .stun = server.kind { return !server.done }
            return true
        }.map { ServerID(index: $0) }
    }

    mutating func fromTURNServer(_ server: ServerID, _ bytes: [UInt8], now: Double) -> Inbound {
        guard case .turn(var client) = servers[server.index].kind else { return .consumed }
        if let first = bytes.first, first & 0xC0 == 0x40 {
            guard let (peer, payload) = client.unwrap(channelData: bytes) else { return .consumed }
            return relayed(Array(payload), from: peer, server: server, now: now)
        }
        guard let message = try? STUNMessage(decoding: bytes) else { return .consumed }
        let event = client.handle(message, now: now)
        servers[server.index].kind = .turn(client)
        if case .data(let peer, let payload) = event {
            return relayed(Array(payload), from: peer, server: server, now: now)
        }
        handleTURNEvent(server, event, now: now)
        return .consumed
    }

    mutating func relayed(_ payload: [UInt8], from peer: TransportAddress, server: ServerID, now: Double) -> Inbound {
        let kind = payload.withUnsafeBytes { bytes -> Inbound in inbound(bytes, path: .relay(server), source: peer, now: now) }
        return kind == .media ? .relayedMedia(payload) : kind
    }

    /// A datagram from the remote side, straight or unwrapped from a relay: check responses, and
    /// media over the selected pair.
    mutating func inbound(_ datagram: UnsafeRawBufferPointer, path: Path, source: TransportAddress, now: Double) -> Inbound {
        switch PacketKind.classify(datagram) {
        case .stun:
            guard let message = try? STUNMessage(decoding: Array(datagram)) else { return .consumed }
            if message.type == .bindingRequest {
                answerCheck(message, path: path, source: source, now: now)
            } else {
                handleCheckResponse(message, path: path, source: source, now: now)
            }
            return .consumed
        case .rtp, .rtcp:
            guard phase == .connected, isSelected(path: path, source: source) else { return .consumed }
            lastReceived = now
            return .media
        default:
            return .consumed
        }
    }

    /// A check from the peer (RFC 8445 §7.3). An ICE-lite peer (the edge) sends none to connect;
    /// it sends one to ask this agent's consent before it sends more than it receives (a last-mile
    /// probe's downlink, RFC 7675), and the answer is what grants it. The request must carry
    /// USERNAME `localUfrag:remoteUfrag`, a MESSAGE-INTEGRITY that verifies with this agent's
    /// password and a FINGERPRINT; it is answered on the path it came by, with the source as
    /// XOR-MAPPED-ADDRESS and the edge's CONSENT-NONCE echoed, signed with the same password.
    /// Anything else is dropped unanswered: a
    /// stranger who sends checks learns nothing from the client, and gets nothing sent anywhere.
    mutating func answerCheck(_ request: STUNMessage, path: Path, source: TransportAddress, now: Double) {
        guard phase == .checking || phase == .connected, let remoteParameters,
            request.username == "\(localUfrag):\(remoteParameters.ufrag)", request.fingerprint != nil,
            (try? request.verifyFingerprint()) != nil
        else { return }
        let key = STUNIntegrityKey(Array(localPassword.utf8))
        guard (try? request.verifyIntegrity(key: key)) != nil else { return }
        var attributes: [STUNAttribute] = [.xorMappedAddress(source)]
        // The edge's CONSENT-NONCE comes back as it went: only a Preflight client echoes it.
        for case .unknown(let type, let value) in request.attributes
        where type == STUNAttributeType.consentNonce.rawValue && value.count <= STUNAttributeType.maximumConsentNonceLength {
            attributes.append(.unknown(type: type, value: value))
        }
        let response = STUNMessage(type: .bindingSuccess, transactionID: request.transactionID, attributes: attributes)
        guard let bytes = try? response.encoded(integrityKey: key, fingerprint: true), let route = route(path: path, to: source),
            let framed = route.frame(bytes)
        else { return }
        transmit(framed, route.transport)
        checksAnswered += 1
        if isSelected(path: path, source: source) { lastReceived = now }
    }

    /// Whether media from `source` on `path` comes over the selected pair.
    func isSelected(path: Path, source: TransportAddress) -> Bool {
        guard let selected, let pair = checkList?.pairs[selected] else { return false }
        return locals[pair.local].path == path && remotes[pair.remote].address == source
    }

    mutating func handleTURNEvent(_ server: ServerID, _ event: TURNClient.Event, now: Double) {
        let url = servers[server.index].url
        switch event {
        case .allocated(let relayed, let mapped):
            servers[server.index].done = true
            if let mapped, configuration.transportPolicy == .all {
                addReflexive(mapped, url: url.description, socket: servers[server.index].socket ?? .ipv4, now: now)
            }
            let preference = url.scheme == .turns ? 0 : url.transport == .tcp ? 1 : 2
            let base = sockets[servers[server.index].socket ?? .ipv4]
            let foundation = foundation(type: .relay, base: relayed.host, server: url.description, transport: url.transport.rawValue)
            let priority = ICECandidate.priority(
                typePreference: preference, localPreference: 65535 - server.index, component: configuration.component)
            let candidate = ICECandidate(
                foundation: foundation, component: configuration.component, priority: priority, address: relayed.host,
                port: relayed.port, type: .relay, relatedAddress: mapped?.host ?? base?.host,
                relatedPort: mapped?.port ?? base?.port ?? 0)
            addLocal(ICECandidateStats(
                candidateType: .relay, networkId: 1, url: url.description, priority: Int(priority),
                networkType: Self.networkType(ofAddress: base?.host ?? ""), relatedAddress: candidate.relatedAddress ?? "",
                ip: relayed.host, isRemote: false, relatedPort: Int(candidate.relatedPort ?? 0), port: Int(relayed.port)),
                candidate: candidate, path: .relay(server), now: now)
            gatheredLate(locals.count - 1, now: now)
            finishGatheringIfDone(now: now)
        case .failed(let error, let reason):
            if !servers[server.index].done {
                serverFailed(server, code: error?.code ?? ICECandidateErrorRecord.unreachable, text: reason, now: now)
                finishGatheringIfDone(now: now)
            }
        case .resend(let bytes):
            sendToServer(server, bytes)
        case .channelBindFailed(let peer, let error):
            emit(.channelBindRefused(server: server, peer: peer, error))
        case .channelBound, .refreshed, .data, .none:
            // A bound channel changes ``mediaRoute`` (ChannelData instead of Send indications).
            break
        }
    }
}

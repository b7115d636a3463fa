import Foundation
import Logging
internal import NIOCore
internal import NIOPosix
internal import NIOSSL
internal import PreflightCore
internal import PreflightNIO

extension TestRun.Loop {
    // MARK: Timeline

    mutating func mark(_ group: ConnectionStateEvent.Group, _ name: String, detail: String? = nil, at instant: ContinuousClock.Instant? = nil) {
        agent.timeline.append(ConnectionStateEvent(group: group, name: name, timestamp: wallTime(instant ?? clock.now), detail: detail))
    }

    mutating func reportServerError(_ index: Int, code: Int, text: String) {
        let server = agent.servers[index]
        agent.servers[index].done = true
        let local = socket.localAddress
        agent.errors.append(ICECandidateErrorRecord(
            url: server.url.description, address: local?.ipAddress, port: local?.port, errorCode: code, errorText: text,
            timestamp: wallTime(clock.now)))
        run.logger.info("ICE server gave no candidate", metadata: ["url": "\(server.url)", "error": "\(code) \(text)"])
    }

    // MARK: Gathering

    /// Gathers host candidates at once, then asks every STUN server for the server-reflexive
    /// address and every TURN server for an allocation; ``finishGathering()`` sends the invite
    /// when all have answered or the gathering timeout passed.
    mutating func startGathering(_ iceServers: [ICEServer], group: inout TaskGroup<Void>) async throws(PreflightError) {
        mark(.iceGatheringState, "new")
        mark(.iceConnectionState, "new")
        mark(.peerConnectionState, "new")
        mark(.iceGatheringState, "gathering")
        let relayOnly = run.options.iceTransportPolicy == .relay
        if !relayOnly {
            let hosts = Self.hostCandidates(
                port: socket.localAddress?.port ?? 0, port6: socket6?.localAddress?.port, edgeURL: run.options.edgeURL)
            for host in hosts {
                addLocal(host.stats, path: host.isIPv6 ? .direct6 : .direct)
            }
        }
        for server in iceServers {
            for text in server.urls {
                let url: ICEServerURL
                do throws(PreflightError) {
                    url = try ICEServerURL(text)
                } catch {
                    agent.errors.append(ICECandidateErrorRecord(url: text, errorCode: 701, errorText: error.message, timestamp: wallTime(clock.now)))
                    continue
                }
                if relayOnly, !url.scheme.isTURN { continue }
                if agent.servers.contains(where: { $0.url == url }) { continue }
                agent.servers.append(ICEAgentState.Server(url: url, username: server.username, credential: server.credential))
            }
        }
        for index in agent.servers.indices {
            let url = agent.servers[index].url
            if url.scheme == .stuns {
                reportServerError(index, code: 701, text: "stuns: (STUN over TLS) is not supported; use stun:")
                continue
            }
            if url.scheme.isTURN, agent.servers[index].username == nil || agent.servers[index].credential == nil {
                reportServerError(index, code: 701, text: "no username and credential for the TURN server")
                continue
            }
            guard let address = try? SocketAddress(ipAddress: url.host, port: url.port) else {
                resolve(index, host: url.host, port: url.port, in: &group)
                continue
            }
            try await serverResolved(index, address, group: &group)
        }
        after(run.options.gatheringTimeout, .deadline(.gathering), in: &group)
        try await finishGatheringIfDone()
    }

    func resolve(_ index: Int, host: String, port: Int, in group: inout TaskGroup<Void>) {
        let events = events
        group.addTask {
            // getaddrinfo blocks: keep it off the loop's task.
            let address = try? SocketAddress.makeAddressResolvingHost(host, port: port)
            events.yield(.serverResolved(index, address))
        }
    }

    mutating func serverResolved(_ index: Int, _ address: SocketAddress?, group: inout TaskGroup<Void>) async throws(PreflightError) {
        guard agent.servers.indices.contains(index), !agent.servers[index].done else { return }
        guard let address else {
            reportServerError(index, code: 701, text: "cannot resolve \(agent.servers[index].url.host)")
            try await finishGatheringIfDone()
            return
        }
        // STUN over IPv6 goes from the IPv6 socket; TURN is reached over IPv4.
        guard address.protocol == .inet || (address.protocol == .inet6 && socket6 != nil && !agent.servers[index].url.scheme.isTURN) else {
            reportServerError(index, code: 701, text: "\(address) is not reachable from this host's sockets (TURN needs IPv4)")
            try await finishGatheringIfDone()
            return
        }
        agent.servers[index].address = address
        let server = agent.servers[index]
        let now = clock.now
        if server.url.scheme.isTURN {
            var client = TURNClient(
                username: server.username ?? "", password: server.credential ?? "", isStream: server.url.transport == .tcp,
                software: "preflight-swift/\(PreflightVersion.current)")
            if server.url.transport == .udp {
                let bytes = client.allocate(now: seconds(now))
                agent.servers[index].kind = .turn(client)
                socket.send(bytes, to: address)
            } else {
                agent.servers[index].kind = .turn(client)
                var tls: TLSConfiguration?
                if server.url.scheme == .turns {
                    var configuration = TLSConfiguration.makeClientConfiguration()
                    if let file = run.options.turnTrustedCertificatesFile {
                        do {
                            configuration.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(file))]
                        } catch {
                            reportServerError(index, code: 701, text: "cannot read the trusted certificates in \(file): \(error)")
                            try await finishGatheringIfDone()
                            return
                        }
                    }
                    tls = configuration
                }
                connect(index, to: address, url: server.url, tls: tls, in: &group)
            }
        } else {
            let request = STUNMessage(
                type: .bindingRequest, transactionID: .random(),
                attributes: [.software("preflight-swift/\(PreflightVersion.current)")])
            guard let bytes = try? request.encoded(fingerprint: true) else { return }
            agent.servers[index].kind = .stun(ICEAgentState.STUNGathering(
                transactionID: request.transactionID, bytes: bytes, transmissions: 1, nextRetransmit: now + .milliseconds(250)))
            udpSocket(for: address)?.send(bytes, to: address)
        }
    }

    func connect(_ index: Int, to address: SocketAddress, url: ICEServerURL, tls: TLSConfiguration?, in group: inout TaskGroup<Void>) {
        let events = events
        let timeout = run.options.gatheringTimeout
        let hostname = (try? SocketAddress(ipAddress: url.host, port: 0)) == nil ? url.host : nil
        group.addTask { [tls] in
            do throws(PreflightError) {
                let connection = try await TURNStreamConnection.connect(to: address, tls: tls, serverHostname: hostname, timeout: timeout)
                events.yield(.turnConnected(index, connection))
                for await message in connection.messages { events.yield(.turnMessage(index, message)) }
                events.yield(.turnClosed(index))
            } catch {
                events.yield(.turnConnectFailed(index, error))
            }
        }
    }

    mutating func turnConnected(_ index: Int, _ connection: TURNStreamConnection) {
        guard agent.servers.indices.contains(index), !agent.servers[index].done,
            case .turn(var client) = agent.servers[index].kind
        else {
            Task { await connection.close() }
            return
        }
        agent.servers[index].stream = connection
        let bytes = client.allocate(now: seconds(clock.now))
        agent.servers[index].kind = .turn(client)
        connection.send(bytes)
    }

    /// Sends `bytes` to server `index` over its transport.
    func sendToServer(_ index: Int, _ bytes: [UInt8]) {
        let server = agent.servers[index]
        if let stream = server.stream {
            stream.send(bytes)
        } else if let address = server.address {
            udpSocket(for: address)?.send(bytes, to: address)
        }
    }

    /// The socket that reaches `address`: the IPv6 one for IPv6.
    func udpSocket(for address: SocketAddress) -> MediaSocket? {
        address.protocol == .inet6 ? socket6 : socket
    }

    /// Retransmits gathering requests over UDP (STUN Binding: 250 ms doubling; TURN: the
    /// client's own timers).
    mutating func retransmitGathering(now: ContinuousClock.Instant) async throws(PreflightError) {
        for index in agent.servers.indices {
            switch agent.servers[index].kind {
            case .stun(var gathering) where !agent.servers[index].done && gathering.nextRetransmit <= now:
                guard gathering.transmissions < 7, let address = agent.servers[index].address else {
                    reportServerError(index, code: 701, text: "no answer to \(gathering.transmissions) Binding requests")
                    continue
                }
                gathering.transmissions += 1
                gathering.nextRetransmit = now + .milliseconds(250) * (1 << min(gathering.transmissions - 1, 3))
                agent.servers[index].kind = .stun(gathering)
                udpSocket(for: address)?.send(gathering.bytes, to: address)
            case .turn(var client):
                let (resend, turnEvents) = client.retransmissions(now: seconds(now))
                agent.servers[index].kind = .turn(client)
                for bytes in resend { sendToServer(index, bytes) }
                for event in turnEvents { try await handleTURNEvent(index, event) }
            default:
                continue
            }
        }
        try await finishGatheringIfDone()
    }

    /// A datagram from a UDP STUN or TURN server, or a message on a TURN connection.
    /// - Parameter path: the socket it came to (what is not the server's goes on as media).
    mutating func handleServer(_ index: Int, _ datagram: Datagram, path: ICEAgentState.Path = .direct) async throws(PreflightError) {
        let bytes = Array(datagram.data.readableBytesView)
        switch agent.servers[index].kind {
        case .turn(let client):
            if let first = bytes.first, first & 0xC0 == 0x40 {
                guard let (peer, payload) = client.unwrap(channelData: bytes), let source = peer.socketAddress else { return }
                try await inbound(Datagram(data: ByteBuffer(bytes: payload), source: source, arrival: datagram.arrival), path: .relay(index))
                return
            }
            guard let message = try? STUNMessage(decoding: bytes) else { return }
            var updated = client
            let event = updated.handle(message, now: seconds(datagram.arrival))
            agent.servers[index].kind = .turn(updated)
            if case .data(let peer, let payload) = event {
                guard let source = peer.socketAddress else { return }
                try await inbound(Datagram(data: ByteBuffer(bytes: payload), source: source, arrival: datagram.arrival), path: .relay(index))
                return
            }
            try await handleTURNEvent(index, event)
        case .stun(let gathering):
            guard let message = try? STUNMessage(decoding: bytes), message.transactionID == gathering.transactionID else {
                // The edge's own STUN port is also its media port: everything else is media.
                try await inbound(datagram, path: path)
                return
            }
            guard !agent.servers[index].done else { return }
            agent.servers[index].done = true
            if message.type.messageClass == .successResponse, let mapped = message.reflexiveAddress {
                addReflexive(mapped, url: agent.servers[index].url.description)
            } else {
                reportServerError(index, code: message.errorCode?.code ?? 701, text: message.errorCode?.reason ?? "no mapped address in the response")
            }
            try await finishGatheringIfDone()
        case nil:
            try await inbound(datagram, path: path)
        }
    }

    mutating func handleTURNEvent(_ index: Int, _ event: TURNClient.Event) async throws(PreflightError) {
        let url = agent.servers[index].url
        switch event {
        case .allocated(let relayed, let mapped):
            agent.servers[index].done = true
            if let mapped, run.options.iceTransportPolicy == .all { addReflexive(mapped, url: url.description) }
            let preference = url.scheme == .turns ? 0 : url.transport == .tcp ? 1 : 2
            let base = socket.localAddress
            let foundation = agent.foundation(type: .relay, base: relayed.host, server: url.description, transport: url.transport.rawValue)
            let priority = ICECandidate.priority(typePreference: preference, localPreference: 65535 - index, component: 1)
            let candidate = ICECandidate(
                foundation: foundation, priority: priority, address: relayed.host, port: relayed.port, type: .relay,
                relatedAddress: mapped?.host ?? base?.ipAddress, relatedPort: mapped?.port ?? UInt16(clamping: base?.port ?? 0))
            addLocal(ICECandidateStats(
                candidateType: .relay, networkId: 1, url: url.description, priority: Int(priority),
                networkType: Self.networkType(base?.ipAddress ?? ""), relatedAddress: candidate.relatedAddress ?? "",
                ip: relayed.host, isRemote: false, relatedPort: Int(candidate.relatedPort ?? 0), port: Int(relayed.port)),
                candidate: candidate, path: .relay(index))
            try await finishGatheringIfDone()
        case .failed(let error, let reason):
            if !agent.servers[index].done {
                reportServerError(index, code: error?.code ?? 701, text: reason)
                try await finishGatheringIfDone()
            }
        case .resend(let bytes):
            sendToServer(index, bytes)
        case .channelBound(let peer, _):
            // Media on a pair through this relay switches from Send indications to ChannelData.
            if let selected = agent.selected, let checkList = agent.checkList {
                let pair = checkList.pairs[selected]
                if agent.locals[pair.local].path == .relay(index), agent.remotes[pair.remote].transportAddress == peer {
                    route.set(mediaRoute(pair: selected))
                }
            }
        case .channelBindFailed(let peer, let error):
            run.logger.info("TURN ChannelBind refused; Send indications carry the data", metadata: [
                "url": "\(url)", "peer": "\(peer)", "error": "\(error.map { "\($0)" } ?? "no answer")",
            ])
        case .refreshed, .data, .none:
            break
        }
    }

    mutating func turnFailed(_ index: Int, _ error: PreflightError) async throws(PreflightError) {
        guard agent.servers.indices.contains(index), !agent.servers[index].done else { return }
        reportServerError(index, code: 701, text: error.message)
        try await finishGatheringIfDone()
    }

    mutating func addReflexive(_ mapped: TransportAddress, url: String) {
        guard !agent.locals.contains(where: { $0.candidate.address == mapped.host && $0.candidate.port == mapped.port }) else { return }
        // The base: a host candidate of the socket the answer came to (the same family).
        let path: ICEAgentState.Path = mapped.family == .ipv6 ? .direct6 : .direct
        let base = agent.locals.first { $0.stats.candidateType == .host && $0.path == path }
        let foundation = agent.foundation(type: .serverReflexive, base: base?.candidate.address ?? "", server: url, transport: "udp")
        let priority = ICECandidate.priority(typePreference: 100, localPreference: 65535, component: 1)
        let candidate = ICECandidate(
            foundation: foundation, priority: priority, address: mapped.host, port: mapped.port, type: .serverReflexive,
            relatedAddress: base?.candidate.address, relatedPort: base?.candidate.port)
        addLocal(ICECandidateStats(
            candidateType: .serverReflexive, networkId: base?.stats.networkId ?? 1, url: url, priority: Int(priority),
            networkType: base?.stats.networkType ?? "Unknown", relatedAddress: base?.candidate.address ?? "", ip: mapped.host,
            isRemote: false, relatedPort: Int(base?.candidate.port ?? 0), port: Int(mapped.port)),
            candidate: candidate, path: path)
    }

    mutating func addLocal(_ stats: ICECandidateStats, path: ICEAgentState.Path) {
        let foundation = agent.foundation(type: stats.candidateType, base: stats.ip, server: "", transport: stats.protocol)
        let candidate = ICECandidate(
            foundation: foundation, priority: UInt32(clamping: stats.priority), address: stats.ip, port: UInt16(clamping: stats.port),
            type: stats.candidateType)
        addLocal(stats, candidate: candidate, path: path)
    }

    mutating func addLocal(_ stats: ICECandidateStats, candidate: ICECandidate, path: ICEAgentState.Path) {
        var stats = stats
        stats.networkCost = Self.networkCost(stats.networkType)
        agent.locals.append(ICEAgentState.Local(candidate: candidate, stats: stats, path: path))
        mark(.iceCandidate, "ice-candidate", detail: candidate.sdpAttribute)
    }

    /// Sends the invite once every server answered (or the gathering deadline passed).
    mutating func finishGatheringIfDone(deadline: Bool = false) async throws(PreflightError) {
        guard phase == .gathering, !agent.gatheringComplete else { return }
        if !deadline, agent.servers.contains(where: { !$0.done }) { return }
        for index in agent.servers.indices where !agent.servers[index].done {
            reportServerError(index, code: 701, text: "no candidate within the gathering timeout of \(run.options.gatheringTimeout)")
        }
        agent.gatheringComplete = true
        mark(.iceGatheringState, "complete")
        let candidates = agent.locals.map(\.candidate)
        try await signaling.send(.invite(SignalingMessage.Invite(
            ice: ICEParameters(ufrag: localUfrag, pwd: localPassword, candidates: candidates),
            codecs: run.options.preferredAudioCodecs)))
        mark(.signalingState, "have-local-offer")
        phase = .awaitingAnswer
        publish()
    }

    func seconds(_ instant: ContinuousClock.Instant) -> Double {
        (instant - origin).inSeconds
    }
}

extension TransportAddress {
    /// The address as a NIO socket address.
    var socketAddress: SocketAddress? {
        try? SocketAddress(ipAddress: host, port: Int(port))
    }
}

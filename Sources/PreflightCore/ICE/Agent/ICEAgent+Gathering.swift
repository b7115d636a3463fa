extension ICEAgent {
    /// Starts gathering: host candidates at once, then a Binding request to every STUN server and
    /// an Allocate to every TURN server. Gathering completes when every server answered, failed,
    /// or ``Configuration/gatheringTimeout`` passed (``Event/gatheringComplete(_:candidateStats:)``).
    /// - Parameters:
    ///   - hosts: the host addresses to offer, best first (skipped under the relay policy).
    ///   - sockets: the local address of each socket the driver bound (`.ipv4` is required for
    ///     TURN and IPv4 servers; without `.ipv6`, IPv6 servers and candidates are unreachable).
    ///   - servers: the STUN and TURN servers, as the application and the edge gave them.
    ///   - now: the agent's time.
    public mutating func gather(hosts: [HostInterface], sockets: [Socket: TransportAddress], servers iceServers: [ICEServer], now: Double) {
        guard phase == .new else { return }
        phase = .gathering
        self.sockets = sockets
        mark(.iceGatheringState, "new", now: now)
        mark(.iceConnectionState, "new", now: now)
        mark(.iceGatheringState, "gathering", now: now)
        let relayOnly = configuration.transportPolicy == .relay
        if !relayOnly {
            for (index, host) in hosts.enumerated() {
                addHost(host, index: index, now: now)
            }
        }
        for server in iceServers {
            for text in server.urls {
                let url: ICEServerURL
                do throws(PreflightError) {
                    url = try ICEServerURL(text)
                } catch {
                    candidateErrors.append(ICECandidateErrorRecord(
                        url: text, errorCode: ICECandidateErrorRecord.unreachable, errorText: error.message, timestamp: wallTime(now)))
                    continue
                }
                if relayOnly, !url.scheme.isTURN { continue }
                if servers.contains(where: { $0.url == url }) { continue }
                servers.append(Server(url: url, username: server.username, credential: server.credential))
            }
        }
        for index in servers.indices {
            let id = ServerID(index: index)
            let url = servers[index].url
            if url.scheme == .stuns {
                serverFailed(id, text: "stuns: (STUN over TLS) is not supported; use stun:", now: now)
                continue
            }
            if url.scheme.isTURN, servers[index].username == nil || servers[index].credential == nil {
                serverFailed(id, text: "no username and credential for the TURN server", now: now)
                continue
            }
            guard let port = UInt16(exactly: url.port), let address = TransportAddress(host: url.host, port: port) else {
                outputs.append(.resolve(id, host: url.host, port: url.port))
                continue
            }
            serverResolved(id, address: address, now: now)
        }
        gatheringDeadline = now + configuration.gatheringTimeout.inSeconds
        finishGatheringIfDone(now: now)
    }

    /// A server's host name resolved (`nil`: it did not).
    public mutating func serverResolved(_ id: ServerID, address: TransportAddress?, now: Double) {
        guard servers.indices.contains(id.index), !servers[id.index].done else { return }
        defer { finishGatheringIfDone(now: now) }
        guard let address else {
            serverFailed(id, text: "cannot resolve \(servers[id.index].url.host)", now: now)
            return
        }
        let url = servers[id.index].url
        // STUN over IPv6 goes from an IPv6 socket; TURN is reached over IPv4.
        let socket = serverSocket(id, to: address)
        guard socket.family == address.family, sockets[socket] != nil, address.family == .ipv4 || !url.scheme.isTURN else {
            serverFailed(id, text: "\(address) is not reachable from this host's sockets (TURN needs IPv4)", now: now)
            return
        }
        servers[id.index].address = address
        if url.scheme.isTURN {
            let isStream = url.transport != .udp
            var client = TURNClient(
                username: servers[id.index].username ?? "", password: servers[id.index].credential ?? "",
                isStream: url.transport == .tcp, software: configuration.software)
            servers[id.index].isStream = isStream
            if isStream {
                servers[id.index].kind = .turn(client)
                outputs.append(.connect(id, address: address, url: url))
            } else {
                let bytes = client.allocate(now: now)
                servers[id.index].kind = .turn(client)
                transmit(bytes, .udp(socket, to: address))
            }
        } else {
            let request = STUNMessage(type: .bindingRequest, transactionID: .random(), attributes: [.software(configuration.software)])
            guard let bytes = try? request.encoded(fingerprint: true) else { return }
            servers[id.index].kind = .stun(STUNGathering(
                transactionID: request.transactionID, bytes: bytes, transmissions: 1, nextRetransmit: now + 0.25))
            transmit(bytes, .udp(socket, to: address))
        }
    }

    /// The socket that reaches server `id` at `address`: its network's, else the one bound on
    /// every interface of the address's family.
    func serverSocket(_ id: ServerID, to address: TransportAddress) -> Socket {
        servers[id.index].socket ?? Self.socket(for: address)
    }

    /// The TCP or TLS connection to a TURN server is open: the Allocate goes out on it.
    public mutating func streamConnected(_ id: ServerID, now: Double) {
        guard phase != .closed, phase != .failed, servers.indices.contains(id.index), !servers[id.index].done,
            case .turn(var client) = servers[id.index].kind
        else {
            outputs.append(.closeStream(id))
            return
        }
        servers[id.index].connected = true
        let bytes = client.allocate(now: now)
        servers[id.index].kind = .turn(client)
        transmit(bytes, .stream(id))
    }

    /// The connection to a TURN server failed, or closed: its relay is lost (if it had one, the
    /// pairs through it stop answering and consent decides).
    public mutating func streamFailed(_ id: ServerID, reason: String, now: Double) {
        guard servers.indices.contains(id.index) else { return }
        servers[id.index].connected = false
        guard !servers[id.index].done else { return }
        serverFailed(id, text: reason, now: now)
        finishGatheringIfDone(now: now)
    }

    /// Gathering retransmissions (STUN Binding: 250 ms doubling up to 2 s, 7 in all; TURN: the
    /// client's own timers) and the gathering deadline.
    mutating func pollGathering(now: Double) {
        for index in servers.indices {
            let id = ServerID(index: index)
            switch servers[index].kind {
            case .stun(var gathering) where !servers[index].done && gathering.nextRetransmit <= now:
                guard gathering.transmissions < 7, let address = servers[index].address else {
                    serverFailed(id, text: "no answer to \(gathering.transmissions) Binding requests", now: now)
                    continue
                }
                gathering.transmissions += 1
                gathering.nextRetransmit = now + 0.25 * Double(1 << min(gathering.transmissions - 1, 3))
                servers[index].kind = .stun(gathering)
                transmit(gathering.bytes, .udp(serverSocket(id, to: address), to: address))
            case .turn(var client):
                let (resend, events) = client.retransmissions(now: now)
                servers[index].kind = .turn(client)
                for bytes in resend { sendToServer(id, bytes) }
                for event in events { handleTURNEvent(id, event, now: now) }
            default:
                continue
            }
        }
        if phase == .gathering, let deadline = gatheringDeadline, now >= deadline {
            finishGathering(now: now)
        } else {
            finishGatheringIfDone(now: now)
        }
    }

    /// Sends `bytes` to a server over its transport.
    mutating func sendToServer(_ id: ServerID, _ bytes: [UInt8]) {
        let server = servers[id.index]
        if server.isStream {
            if server.connected { transmit(bytes, .stream(id)) }
        } else if let address = server.address {
            transmit(bytes, .udp(serverSocket(id, to: address), to: address))
        }
    }

    /// Adds `host` as the host candidate of the `index`th interface, with its network's priority.
    /// - Returns: whether it was added (its socket is bound).
    @discardableResult
    mutating func addHost(_ host: HostInterface, index: Int, now: Double) -> Bool {
        guard let base = sockets[host.socket] else { return false }
        let priority = ICECandidate.priority(
            typePreference: 126, localPreference: Self.hostLocalPreference(networkType: host.networkType, index: index),
            component: configuration.component)
        addLocal(ICECandidateStats(
            candidateType: .host, networkId: index + 1, priority: Int(priority), networkType: host.networkType,
            ip: host.address, isRemote: false, port: Int(base.port)), path: .socket(host.socket), now: now)
        return true
    }

    /// A host candidate's local preference: the network's type first, in the TVOCall reference's
    /// order (ETHERNET, LOOPBACK, WIFI, VPN, CELLULAR: ``NetworkType/preferenceRank``), 4,096
    /// apart, then the interface's place (`index`) within the type: 65,535 for the first
    /// Ethernet address, 57,343 for the first Wi-Fi one, 45,055 for the first cellular one.
    static func hostLocalPreference(networkType: String, index: Int) -> Int {
        let rank = (NetworkType(rawValue: networkType) ?? .unknown).preferenceRank
        return 65535 - rank * 4096 - min(max(0, index), 4095)
    }

    /// The socket that reaches `address`: the IPv6 one for IPv6.
    static func socket(for address: TransportAddress) -> Socket {
        address.family == .ipv6 ? .ipv6 : .ipv4
    }

    mutating func serverFailed(_ id: ServerID, code: Int = ICECandidateErrorRecord.unreachable, text: String, now: Double) {
        servers[id.index].done = true
        let local = sockets[servers[id.index].socket ?? .ipv4]
        let record = ICECandidateErrorRecord(
            url: servers[id.index].url.description, address: local?.host, port: local.map { Int($0.port) }, errorCode: code,
            errorText: text, timestamp: wallTime(now))
        candidateErrors.append(record)
        emit(.serverFailed(record))
    }

    mutating func finishGatheringIfDone(now: Double) {
        guard phase == .gathering, !servers.contains(where: { !$0.done }) else { return }
        finishGathering(now: now)
    }

    mutating func finishGathering(now: Double) {
        guard phase == .gathering else { return }
        for index in servers.indices where !servers[index].done {
            serverFailed(
                ServerID(index: index), text: "no candidate within the gathering timeout of \(configuration.gatheringTimeout)",
                now: now)
        }
        phase = .gathered
        mark(.iceGatheringState, "complete", now: now)
        emit(.gatheringComplete(localParameters, candidateStats: locals.map(\.stats)))
    }
}

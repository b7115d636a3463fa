extension ICEAgent {
    /// A network appeared during the run: its host candidates, each on a socket of its own that
    /// the driver bound to the network (so that what goes from it leaves by that network), are
    /// added and paired with the remote candidates. Their checks start at once while media goes
    /// on over the selected pair (make before break); when one of them validates with a higher
    /// priority than the selected pair (a more preferred network: ``hostLocalPreference``), it is
    /// nominated and media moves to it (``Event/pairChanged(_:at:)``); otherwise media stays. When
    /// the agent is disconnected, the new pairs are checked with the others and the first that
    /// answers may reconnect it.
    ///
    /// The new sockets also ask every STUN and UDP TURN server of the run for the network's
    /// server-reflexive and relayed candidates (``gatherServers(on:now:)``); those come later,
    /// with ``Event/candidateGathered(_:)``.
    ///
    /// No host is added under the relay policy (only the relays are gathered), and nothing before
    /// ``gather(hosts:sockets:servers:now:)`` or after the agent failed or closed. An address
    /// already offered on the same socket is skipped.
    /// - Parameters:
    ///   - hosts: the network's addresses, each naming its socket; `networkType` orders them.
    ///   - sockets: the local address of each new socket.
    ///   - now: the agent's time.
    /// - Returns: the candidates added, to tell the remote side.
    @discardableResult
    public mutating func addHosts(_ hosts: [HostInterface], sockets newSockets: [Socket: TransportAddress], now: Double) -> [ICECandidate] {
        guard phase != .new, phase != .failed, phase != .closed else { return [] }
        for (socket, address) in newSockets { sockets[socket] = address }
        defer { gatherServers(on: newSockets.keys.sorted { $0.id < $1.id }, now: now) }
        guard configuration.transportPolicy != .relay else { return [] }
        var added: [ICECandidate] = []
        for host in hosts {
            guard !locals.contains(where: { $0.path == .socket(host.socket) && $0.candidate.address == host.address }),
                addHost(host, index: locals.count { $0.stats.candidateType == .host }, now: now)
            else { continue }
            let candidate = locals[locals.count - 1].candidate
            added.append(candidate)
            if var checkList {
                checkList.add(local: candidate, at: locals.count - 1, remote: remotes.map(\.candidate))
                self.checkList = checkList
            }
        }
        if checkList != nil { pollChecks(now: now) }
        return added
    }

    /// Asks every STUN server and UDP TURN server the run was given (those asked from the
    /// sockets bound on every interface) again from each of `newSockets`, of the same address
    /// family (TURN over IPv4 only): the network's server-reflexive and relayed candidates. Each
    /// is a server of its own (``Server/socket``), with the same timers and failures as at the
    /// start. TURN over TCP or TLS is not asked again: its connection is the driver's, bound
    /// to no network. A run asks at most ``maximumNetworkServers`` so (a network that flaps all
    /// call long would grow the list without end); beyond that a network gets host candidates
    /// only.
    mutating func gatherServers(on newSockets: [Socket], now: Double) {
        let started = servers.indices.filter { servers[$0].socket == nil }
        for socket in newSockets {
            for index in started where servers.count - started.count < Self.maximumNetworkServers {
                let server = servers[index]
                guard let address = server.address, !server.isStream, server.url.transport == .udp, server.url.scheme != .stuns,
                    address.family == socket.family
                else { continue }
                if server.url.scheme.isTURN {
                    guard socket.family == .ipv4, server.username != nil, server.credential != nil else { continue }
                } else if configuration.transportPolicy == .relay {
                    continue
                }
                servers.append(Server(url: server.url, username: server.username, credential: server.credential, socket: socket))
                serverResolved(ServerID(index: servers.count - 1), address: address, now: now)
            }
        }
    }

    /// The most servers a run asks from networks that appeared (``gatherServers(on:now:)``).
    public static let maximumNetworkServers = 32

    /// The local candidate at `index` came after gathering completed: a relayed one gets its
    /// channels and pairs (checked at once); either kind is announced.
    mutating func gatheredLate(_ index: Int, now: Double) {
        guard phase != .new, phase != .gathering, phase != .failed, phase != .closed else { return }
        let local = locals[index]
        if case .relay(let server) = local.path, remoteParameters != nil, case .turn(var client) = servers[server.index].kind {
            for remote in remotes {
                if let bytes = client.channelBind(peer: remote.address, now: now) { sendToServer(server, bytes) }
            }
            servers[server.index].kind = .turn(client)
            if var checkList {
                checkList.add(local: local.candidate, at: index, remote: remotes.map(\.candidate))
                self.checkList = checkList
                pollChecks(now: now)
            }
        }
        emit(.candidateGathered(local.candidate))
    }

    /// The system refused a send on `socket` and the driver bound it again: a network's address
    /// can come a moment before its route, and the first checks on it are refused. The checks in
    /// flight on the socket's pairs go again at once, not at their retransmission timers (250 ms
    /// for a first check): what was refused never left the host, so nothing is sent twice to the
    /// peer that it did not ask for.
    public mutating func socketRebound(_ socket: Socket, now: Double) {
        guard var checkList else { return }
        let onSocket = Set(checkList.pairs.indices.filter { index in
            if case .socket(let local) = locals[checkList.pairs[index].local].path { return local == socket }
            return false
        })
        guard !onSocket.isEmpty else { return }
        checkList.retransmitSoon(pairs: onSocket, now: now)
        self.checkList = checkList
    }

    /// A network went away: its sockets (those ``addHosts(_:sockets:now:)`` added) and the host
    /// addresses it held. Every pair whose host candidate sends from one of those sockets or is
    /// one of those addresses fails for good. When the selected pair was
    /// among them, media is lost now, not after the disconnect timeout: the agent is
    /// disconnected (``Event/disconnected(_:at:)``) and checks every remaining pair at once,
    /// nominating the best that answers (``Event/reconnected(_:at:)``); with none left the
    /// consent timeout fails ICE, unless a network appears before it.
    /// - Parameters:
    ///   - gone: the sockets to forget (the driver closes them).
    ///   - addresses: the network's addresses.
    ///   - now: the agent's time.
    public mutating func removeNetwork(sockets gone: Set<Socket>, addresses: Set<String>, now: Double) {
        for socket in gone { sockets[socket] = nil }
        // The servers asked from those sockets are done with; their allocations cannot be
        // reached (nor deleted) any more.
        var goneServers: Set<Int> = []
        for index in servers.indices {
            guard let socket = servers[index].socket, gone.contains(socket) else { continue }
            servers[index].done = true
            servers[index].kind = nil
            goneServers.insert(index)
        }
        guard var checkList else { return }
        // A pair's local candidate is a host or relayed one (reflexive ones are checked through
        // their base): a host on a gone socket or address goes; a relay goes with the socket its
        // server was reached over (one reached over the socket bound to every interface stays).
        let lostSelected = checkList.retire { pair in
            let base = locals[pair.local]
            switch base.path {
            case .socket(let socket) where gone.contains(socket): return true
            case .relay(let server) where goneServers.contains(server.index): return true
            default: return base.stats.candidateType == .host && addresses.contains(base.candidate.address)
            }
        }
        self.checkList = checkList
        if lostSelected {
            disconnect(because: "the network of the selected pair went away", now: now)
        } else if phase == .checking, checkList.hasFailed, isGatheringComplete {
            fail(failure("every candidate pair's network went away"), now: now)
        }
    }
}

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
    /// Nothing is added under the relay policy, before ``gather(hosts:sockets:servers:now:)`` or
    /// after the agent failed or closed. An address already offered on the same socket is skipped.
    /// - Parameters:
    ///   - hosts: the network's addresses, each naming its socket; `networkType` orders them.
    ///   - sockets: the local address of each new socket.
    ///   - now: the agent's time.
    /// - Returns: the candidates added, to tell the remote side.
    @discardableResult
    public mutating func addHosts(_ hosts: [HostInterface], sockets newSockets: [Socket: TransportAddress], now: Double) -> [ICECandidate] {
        guard phase != .new, phase != .failed, phase != .closed, configuration.transportPolicy != .relay else { return [] }
        for (socket, address) in newSockets { sockets[socket] = address }
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
        guard var checkList else { return }
        // A pair's local candidate is a host or relayed one (reflexive ones are checked through
        // their base): a host on a gone socket or address goes; a relay survives (its server is
        // reached over the socket bound to every interface).
        let lostSelected = checkList.retire { pair in
            let base = locals[pair.local]
            if case .socket(let socket) = base.path, gone.contains(socket) { return true }
            return base.stats.candidateType == .host && addresses.contains(base.candidate.address)
        }
        self.checkList = checkList
        if lostSelected {
            disconnect(because: "the network of the selected pair went away", now: now)
        } else if phase == .checking, checkList.hasFailed, isGatheringComplete {
            fail(failure("every candidate pair's network went away"), now: now)
        }
    }
}

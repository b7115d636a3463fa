import Logging
import PreflightCore
import Synchronization

/// The sockets a driver bound for networks that appeared during its run.
struct NetworkSockets: Sendable {
    /// Each socket, with the interface it belongs to.
    var sockets: [ICEAgent.Socket: (socket: MediaSocket, interface: String, address: String)] = [:]
    /// The next socket's number (0 and 1 are the sockets bound on every interface).
    var nextID = 2
    /// The networks' sockets bound when the driver started, and their host interfaces.
    var initial: (hosts: [ICEAgent.HostInterface], bound: [ICEAgent.Socket: TransportAddress]) = ([], [:])

    /// Takes every socket out.
    mutating func removeAll() -> [(socket: MediaSocket, interface: String, address: String)] {
        defer { sockets.removeAll() }
        return Array(sockets.values)
    }
}

extension ICEAgentDriver {
    /// A network appeared (``NetworkMonitor``): a socket is bound to each of its addresses, its
    /// datagrams leaving by the network's interface (`IP_UNICAST_IF`), and the agent offers them
    /// as host candidates and checks them while media goes on as it goes
    /// (``ICEAgent/addHosts(_:sockets:now:)``: a more preferred network takes the media once its
    /// pair validates). Loopback addresses only for a loopback edge, and none else for one; IPv6
    /// ones only when the driver binds IPv6.
    /// - Returns: the candidates added, to tell the remote side; none when nothing could be bound.
    @discardableResult
    public func addNetwork(_ network: HostNetwork) async -> [ICECandidate] {
        let (hosts, bound) = await bindSockets(for: network)
        guard !hosts.isEmpty else { return [] }
        var added: [ICECandidate] = []
        update { added = $0.addHosts(hosts, sockets: bound, now: self.seconds(.now)) }
        return added
    }

    /// Binds a socket to each of `network`'s addresses the driver offers (loopback ones only for
    /// a loopback edge, and none else for one; IPv6 ones only when the driver binds IPv6), its
    /// datagrams leaving by the network's interface, on the driver's event loop.
    /// - Returns: the host interfaces to offer on them, and each socket's bound address.
    func bindSockets(for network: HostNetwork) async -> (hosts: [ICEAgent.HostInterface], bound: [ICEAgent.Socket: TransportAddress]) {
        var hosts: [ICEAgent.HostInterface] = []
        var bound: [ICEAgent.Socket: TransportAddress] = [:]
        for address in network.addresses where offers(address) {
            let isIPv6 = address.contains(":")
            let socket = networkSockets.withLock { sockets in
                defer { sockets.nextID += 1 }
                return ICEAgent.Socket(id: sockets.nextID, family: isIPv6 ? .ipv6 : .ipv4)
            }
            let media: MediaSocket
            do throws(PreflightError) {
                media = try await MediaSocket.bind(
                    host: address, receiveBufferSize: configuration.receiveBufferSize, interfaceIndex: network.interfaceIndex,
                    group: eventLoop,
                    rebound: { [weak self] in
                        // A refused send (the network's route not there yet): its checks go again now.
                        guard let self else { return }
                        self.update { $0.socketRebound(socket, now: self.seconds(.now)) }
                    }
                ) { [weak self] in self?.received($0, on: socket) }
            } catch {
                logger.info("ICE: no socket on \(network.interfaceName)'s \(address): \(error)")
                continue
            }
            guard let local = media.localAddress.flatMap({ TransportAddress($0) }) else {
                await media.close()
                continue
            }
            networkSockets.withLock { $0.sockets[socket] = (media, network.interfaceName, address) }
            hosts.append(ICEAgent.HostInterface(address: address, socket: socket, networkType: network.type.rawValue))
            bound[socket] = local
        }
        return (hosts, bound)
    }

    /// Binds the sockets of the networks the host is on when the driver starts, so that each
    /// network's host candidates leave by it from the start (the sockets bound on every
    /// interface would follow the routing table, and move media before ICE decides anything).
    /// ``gather(servers:)`` offers them; with none (no interface has an address to offer) it
    /// offers the wildcard's.
    func bindInitialNetworks() async {
        var hosts: [ICEAgent.HostInterface] = []
        var bound: [ICEAgent.Socket: TransportAddress] = [:]
        let offered = HostInterfaces.offered(
            loopback: configuration.offersLoopback, includesIPv6: ipv6Socket != nil, overrides: configuration.networkTypeOverrides)
        for network in offered.networks {
            let (some, sockets) = await bindSockets(for: network)
            hosts += some
            bound.merge(sockets) { first, _ in first }
        }
        // In the order gathering offers host addresses (IPv4 first, then by network type).
        let order = offered.hosts.map(\.address)
        hosts.sort { (order.firstIndex(of: $0.address) ?? order.count) < (order.firstIndex(of: $1.address) ?? order.count) }
        networkSockets.withLock { $0.initial = (hosts, bound) }
    }

    /// The network monitor's first view of the host (``NetworkMonitor`` starts after the driver
    /// bound its sockets): a network that came or went, or whose addresses changed, in between is
    /// added or removed now, so that the driver offers what the monitor will follow from.
    /// - Returns: the candidates added, to tell the remote side once the offer went.
    @discardableResult
    public func reconcile(with snapshot: NetworkSnapshot) async -> [ICECandidate] {
        let bound = networkSockets.withLock { state in
            state.sockets.values.reduce(into: [String: Set<String>]()) { $0[$1.interface, default: []].insert($1.address) }
        }
        var added: [ICECandidate] = []
        for network in snapshot.networks {
            let current = bound[network.interfaceName] ?? []
            let offered = Set(network.addresses.filter(offers))
            await remove(addresses: current.subtracting(offered), of: network.interfaceName)
            var new = network
            new.addresses = network.addresses.filter { offered.contains($0) && !current.contains($0) }
            if !new.addresses.isEmpty { added += await addNetwork(new) }
        }
        for (interface, addresses) in bound where !snapshot.networks.contains(where: { $0.interfaceName == interface }) {
            await remove(addresses: addresses, of: interface)
        }
        return added
    }

    /// Whether the driver offers `address`: loopback ones only for a loopback edge, and none
    /// else for one; IPv6 ones only when it binds IPv6.
    func offers(_ address: String) -> Bool {
        let isLoopback = address.hasPrefix("127.") || address == "::1"
        return isLoopback == configuration.offersLoopback && (!address.contains(":") || ipv6Socket != nil)
    }

    /// A network went away: the agent drops its pairs (``ICEAgent/removeNetwork(sockets:addresses:now:)``:
    /// when media went by it, the agent reconnects on what is left at once) and the sockets
    /// ``addNetwork(_:)`` bound for it close.
    public func removeNetwork(_ network: HostNetwork) async {
        await remove(addresses: Set(network.addresses), of: network.interfaceName, allSockets: true)
    }

    /// `addresses` of `interface` went away: their pairs and sockets go (every socket of the
    /// interface with `allSockets`).
    private func remove(addresses: Set<String>, of interface: String, allSockets: Bool = false) async {
        let gone = networkSockets.withLock { state in
            let gone = state.sockets.filter { $0.value.interface == interface && (allSockets || addresses.contains($0.value.address)) }
            for socket in gone.keys { state.sockets[socket] = nil }
            return gone
        }
        guard !gone.isEmpty || !addresses.isEmpty else { return }
        update { $0.removeNetwork(sockets: Set(gone.keys), addresses: addresses, now: self.seconds(.now)) }
        for entry in gone.values { await entry.socket.close() }
    }
}

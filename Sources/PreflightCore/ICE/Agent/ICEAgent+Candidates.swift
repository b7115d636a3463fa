extension ICEAgent {
    /// The kind of network an address is on, as far as the address alone tells: "Loopback" or
    /// "Unknown" (the driver knows more about its own interfaces).
    public static func networkType(ofAddress address: String) -> String {
        address.hasPrefix("127.") || address == "::1" ? "Loopback" : "Unknown"
    }

    /// WebRTC's network cost for a network type (rtc::kNetworkCost*: 0 wired, 10 Wi-Fi,
    /// 900 cellular, 50 unknown).
    public static func networkCost(_ type: String) -> Int {
        switch type {
        case "Ethernet", "Loopback": 0
        case "Wifi": 10
        case "Cellular": 900
        default: 50
        }
    }

    /// A candidate as the report lists it.
    static func stats(of candidate: ICECandidate, isRemote: Bool) -> ICECandidateStats {
        ICECandidateStats(
            candidateType: candidate.type, protocol: candidate.transport, priority: Int(candidate.priority),
            networkType: networkType(ofAddress: candidate.address), relatedAddress: candidate.relatedAddress ?? "",
            ip: candidate.address, tcpType: candidate.tcpType ?? "", isRemote: isRemote,
            relatedPort: Int(candidate.relatedPort ?? 0), port: Int(candidate.port))
    }

    /// A server-reflexive candidate from a server's answer on `socket`.
    mutating func addReflexive(_ mapped: TransportAddress, url: String, socket: Socket, now: Double) {
        guard !locals.contains(where: { $0.candidate.address == mapped.host && $0.candidate.port == mapped.port }) else { return }
        // The base: a host candidate of the socket the answer came to.
        let path = Path.socket(socket)
        let base = locals.first { $0.stats.candidateType == .host && $0.path == path }
        let foundation = foundation(type: .serverReflexive, base: base?.candidate.address ?? "", server: url, transport: "udp")
        let priority = ICECandidate.priority(typePreference: 100, localPreference: 65535, component: configuration.component)
        let candidate = ICECandidate(
            foundation: foundation, component: configuration.component, priority: priority, address: mapped.host,
            port: mapped.port, type: .serverReflexive, relatedAddress: base?.candidate.address, relatedPort: base?.candidate.port)
        addLocal(ICECandidateStats(
            candidateType: .serverReflexive, networkId: base?.stats.networkId ?? 1, url: url, priority: Int(priority),
            networkType: base?.stats.networkType ?? "Unknown", relatedAddress: base?.candidate.address ?? "", ip: mapped.host,
            isRemote: false, relatedPort: Int(base?.candidate.port ?? 0), port: Int(mapped.port)),
            candidate: candidate, path: path, now: now)
        gatheredLate(locals.count - 1, now: now)
    }

    mutating func addLocal(_ stats: ICECandidateStats, path: Path, now: Double) {
        let foundation = foundation(type: stats.candidateType, base: stats.ip, server: "", transport: stats.protocol)
        let candidate = ICECandidate(
            foundation: foundation, component: configuration.component, priority: UInt32(clamping: stats.priority),
            address: stats.ip, port: UInt16(clamping: stats.port), type: stats.candidateType)
        addLocal(stats, candidate: candidate, path: path, now: now)
    }

    mutating func addLocal(_ stats: ICECandidateStats, candidate: ICECandidate, path: Path, now: Double) {
        var stats = stats
        stats.networkCost = Self.networkCost(stats.networkType)
        locals.append(Local(candidate: candidate, stats: stats, path: path))
        mark(.iceCandidate, "ice-candidate", detail: candidate.sdpAttribute, now: now)
    }

    /// The local candidate a valid pair shows: the one whose address the remote saw (a
    /// server-reflexive one behind a NAT), else a new peer-reflexive one (RFC 8445 §7.2.5.3.1).
    mutating func learnLocal(pair index: Int, mapped: TransportAddress?, now: Double) {
        guard let checkList, let mapped else { return }
        let pair = checkList.pairs[index]
        let path = locals[pair.local].path
        if let match = locals.indices.first(where: {
            locals[$0].path == path && locals[$0].candidate.address == mapped.host && locals[$0].candidate.port == mapped.port
        }) {
            validLocal[index] = match
            return
        }
        let base = locals[pair.local]
        let priority = ICECandidate.priority(
            typePreference: 110, localPreference: base.candidate.localPreference, component: configuration.component)
        let foundation = foundation(type: .peerReflexive, base: base.candidate.address, server: "", transport: "udp")
        let candidate = ICECandidate(
            foundation: foundation, component: configuration.component, priority: priority, address: mapped.host,
            port: mapped.port, type: .peerReflexive, relatedAddress: base.candidate.address, relatedPort: base.candidate.port)
        addLocal(ICECandidateStats(
            candidateType: .peerReflexive, networkId: base.stats.networkId, priority: Int(priority),
            networkType: base.stats.networkType, relatedAddress: base.candidate.address, ip: mapped.host, isRemote: false,
            relatedPort: Int(base.candidate.port), port: Int(mapped.port)), candidate: candidate, path: path, now: now)
        validLocal[index] = locals.count - 1
    }
}

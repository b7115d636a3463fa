import Foundation
import PreflightCore

/// The host addresses an ICE agent offers as host candidates, read from the interfaces.
public enum HostInterfaces {
    /// Whether a signaling URL's host is a loopback address: an edge on loopback is reached from
    /// loopback only, any other from the other interfaces.
    public static func isLoopback(url: String) -> Bool {
        url.contains("://127.") || url.contains("://localhost") || url.contains("://[::1]")
    }

    /// The host addresses to offer, IPv4 first and each family in the reference's order of
    /// network types (ETHERNET, LOOPBACK, WIFI, VPN, CELLULAR: ``NetworkType/preferenceRank``),
    /// so that a more preferred network's candidates get the higher local preference: every
    /// interface's IPv4 address, and its IPv6 addresses when `includesIPv6` (not link-local,
    /// whose scope a candidate cannot carry). Loopback addresses when `loopback`, else the
    /// others; never empty of IPv4 (the wildcard or 127.0.0.1 stands in). Types come from
    /// ``NetworkTypeClassifier`` with `overrides`, or without them those of
    /// `PREFLIGHT_NETWORK_TYPES` (none when it does not parse: the network monitor reports that
    /// error).
    public static func enumerate(loopback: Bool, includesIPv6: Bool, overrides: NetworkTypeOverrides? = nil) -> [ICEAgent.HostInterface] {
        enumerate(loopback: loopback, includesIPv6: includesIPv6, entries: InterfaceAddressEntry.system(), overrides: overrides)
    }

    static func enumerate(
        loopback: Bool, includesIPv6: Bool, entries: [InterfaceAddressEntry], overrides: NetworkTypeOverrides? = nil
    ) -> [ICEAgent.HostInterface] {
        let classifier = NetworkTypeClassifier(overrides: overrides ?? (try? NetworkMonitor.environmentOverrides()) ?? NetworkTypeOverrides())
        var addresses: [(interface: ICEAgent.HostInterface, rank: Int)] = []
        for entry in entries {
            let ip = entry.address
            let isIPv6 = entry.family == .ipv6
            guard !isIPv6 || (includesIPv6 && !InterfaceAddressEntry.isLinkLocalIPv6(ip)) else { continue }
            let isLoopback = ip.hasPrefix("127.") || ip == "::1"
            if isLoopback == loopback, !addresses.contains(where: { $0.interface.address == ip }) {
                let type = networkType(ip, device: entry.interfaceName, classifier: classifier)
                addresses.append((ICEAgent.HostInterface(address: ip, socket: isIPv6 ? .ipv6 : .ipv4, networkType: type.rawValue), type.preferenceRank))
            }
        }
        if !addresses.contains(where: { $0.interface.socket == .ipv4 }) {
            let ip = loopback ? "127.0.0.1" : "0.0.0.0"
            let type = networkType(ip, classifier: classifier)
            addresses.insert((ICEAgent.HostInterface(address: ip, socket: .ipv4, networkType: type.rawValue), type.preferenceRank), at: 0)
        }
        // IPv4 first: the edge's candidates are IPv4 unless it runs on IPv6. Then by network type
        // (a stable sort: the system's order within a type).
        let ordered = addresses.enumerated().sorted {
            ($0.element.interface.socket == .ipv4 ? 0 : 1, $0.element.rank, $0.offset)
                < ($1.element.interface.socket == .ipv4 ? 0 : 1, $1.element.rank, $1.offset)
        }
        return ordered.map(\.element.interface)
    }

    /// The host's networks as ``enumerate(loopback:includesIPv6:)`` offers their addresses: each
    /// interface with an address to offer, its index and type, its addresses in the order above.
    /// A network's own sockets are bound to these (``ICEAgentDriver``); none when no interface
    /// has one (the wildcard then stands in).
    public static func networks(loopback: Bool, includesIPv6: Bool, overrides: NetworkTypeOverrides? = nil) -> [HostNetwork] {
        offered(loopback: loopback, includesIPv6: includesIPv6, overrides: overrides).networks
    }

    /// The host addresses to offer (``enumerate(loopback:includesIPv6:)``, in its order) and the
    /// networks they are on, from one read of the interfaces and one classification each.
    static func offered(
        loopback: Bool, includesIPv6: Bool, overrides: NetworkTypeOverrides? = nil
    ) -> (hosts: [ICEAgent.HostInterface], networks: [HostNetwork]) {
        let entries = InterfaceAddressEntry.system()
        let hosts = enumerate(loopback: loopback, includesIPv6: includesIPv6, entries: entries, overrides: overrides)
        var networks: [HostNetwork] = []
        for host in hosts {
            guard let entry = entries.first(where: { $0.address == host.address }) else { continue }
            if let index = networks.firstIndex(where: { $0.interfaceName == entry.interfaceName }) {
                networks[index].addresses.append(host.address)
                continue
            }
            let interfaceIndex = Int(if_nametoindex(entry.interfaceName))
            guard interfaceIndex > 0, let type = NetworkType(rawValue: host.networkType) else { continue }
            networks.append(HostNetwork(
                interfaceName: entry.interfaceName, interfaceIndex: interfaceIndex, type: type, addresses: [host.address]))
        }
        return (hosts, NetworkSnapshot(networks: networks).networks)
    }

    /// The interface's type: a loopback address is loopback; else ``NetworkTypeClassifier`` on
    /// what sysfs says of `device` (Linux), or `unknown` where nothing is known.
    static func networkType(_ ip: String, device: String = "", classifier: NetworkTypeClassifier) -> NetworkType {
        if ICEAgent.networkType(ofAddress: ip) == "Loopback" { return .loopback }
        #if os(Linux)
            if !device.isEmpty { return classifier.classify(SysfsInterfaceFacts.facts(ofInterface: device)) }
        #endif
        return classifier.overrides.type(of: device) ?? .unknown
    }
}

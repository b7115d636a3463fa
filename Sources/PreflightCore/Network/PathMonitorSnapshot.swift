/// One address the system lists for an interface: a `getifaddrs` entry, as the Apple network
/// monitor reads them beside `NWPathMonitor`'s interfaces (which carry no addresses).
public struct InterfaceAddressEntry: Sendable, Hashable {
    /// The address's family.
    public enum Family: Sendable, Hashable {
        /// IPv4 (`AF_INET`).
        case ipv4
        /// IPv6 (`AF_INET6`).
        case ipv6
    }

    /// The interface's name (`en0`, `pdp_ip0`…).
    public var interfaceName: String
    /// IPv4 or IPv6.
    public var family: Family
    /// The address as text (`192.0.2.7`, `2001:db8::7`), without a zone.
    public var address: String

    /// Creates an entry.
    public init(interfaceName: String, family: Family, address: String) {
        self.interfaceName = interfaceName
        self.family = family
        self.address = address
    }

    /// Whether `address` is an IPv6 link-local address (`fe80::/10`), which a candidate cannot
    /// use: its scope does not travel.
    public static func isLinkLocalIPv6(_ address: String) -> Bool {
        let withoutZone = address.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard withoutZone.contains(":"), let firstGroup = withoutZone.split(separator: ":", omittingEmptySubsequences: false).first,
            let value = UInt16(firstGroup, radix: 16)
        else { return false }
        return value & 0xFFC0 == 0xFE80
    }

    /// The usable addresses of interface `name` among `entries`: its IPv4 addresses, then its IPv6
    /// addresses that are not link-local, each once, in the order listed.
    public static func usableAddresses(of name: String, in entries: [InterfaceAddressEntry]) -> [String] {
        let own = entries.filter { $0.interfaceName == name }
        let ordered = own.filter { $0.family == .ipv4 }.map(\.address)
            + own.filter { $0.family == .ipv6 && !isLinkLocalIPv6($0.address) }.map(\.address)
        var seen: Set<String> = []
        return ordered.filter { seen.insert($0).inserted }
    }
}

/// What `NWPathMonitor` says of one interface of a path: `NWInterface`'s name, index and type.
public struct PathInterface: Sendable, Hashable {
    /// The interface's name (`en0`, `pdp_ip0`, `utun3`…).
    public var name: String
    /// The system's interface index.
    public var index: Int
    /// `NWInterface.InterfaceType`, as ``NetworkInterfaceFacts`` names it.
    public var appleType: NetworkInterfaceFacts.AppleType

    /// Creates an interface record.
    public init(name: String, index: Int, appleType: NetworkInterfaceFacts.AppleType) {
        self.name = name
        self.index = index
        self.appleType = appleType
    }
}

/// Builds the Apple network monitor's snapshots from what `NWPathMonitor` and `getifaddrs` say,
/// and drops those that repeat the last one: the pure part of the Apple backend, tested on Linux.
public struct PathMonitorSnapshots: Sendable {
    /// Gives each interface its type.
    public var classifier: NetworkTypeClassifier
    /// The last snapshot handed out; `nil` before the first.
    public private(set) var last: NetworkSnapshot?

    /// A builder with `classifier`, before any snapshot.
    public init(classifier: NetworkTypeClassifier) {
        self.classifier = classifier
    }

    /// The snapshot of a path: its interfaces (none when the path is not satisfied), each typed by
    /// ``classifier`` from its name and Apple type, with its usable addresses from `addresses`;
    /// an interface without a usable address is left out, as is a second one of the same name.
    public func snapshot(isSatisfied: Bool, interfaces: [PathInterface], addresses: [InterfaceAddressEntry]) -> NetworkSnapshot {
        guard isSatisfied else { return NetworkSnapshot(networks: []) }
        var seenNames: Set<String> = []
        let networks = interfaces.compactMap { interface -> HostNetwork? in
            guard seenNames.insert(interface.name).inserted else { return nil }
            let usable = InterfaceAddressEntry.usableAddresses(of: interface.name, in: addresses)
            guard !usable.isEmpty else { return nil }
            let type = classifier.classify(NetworkInterfaceFacts(name: interface.name, appleType: interface.appleType))
            return HostNetwork(interfaceName: interface.name, interfaceIndex: interface.index, type: type, addresses: usable)
        }
        return NetworkSnapshot(networks: networks)
    }

    /// The snapshot of a path (``snapshot(isSatisfied:interfaces:addresses:)``) when it differs
    /// from the last one handed out (the first always does), else `nil`.
    public mutating func update(isSatisfied: Bool, interfaces: [PathInterface], addresses: [InterfaceAddressEntry]) -> NetworkSnapshot? {
        let snapshot = snapshot(isSatisfied: isSatisfied, interfaces: interfaces, addresses: addresses)
        guard snapshot != last else { return nil }
        last = snapshot
        return snapshot
    }
}

/// One network the host is on: an interface that is up, with the addresses a call can use.
public struct HostNetwork: Sendable, Hashable, Codable {
    /// The interface's name (`eth0`, `wlan0`, `en0`…).
    public var interfaceName: String
    /// The interface's index (the system's; stable while the interface exists).
    public var interfaceIndex: Int
    /// Its type (``NetworkTypeClassifier``'s verdict).
    public var type: NetworkType
    /// Its usable addresses, IPv4 first: global scope (the loopback's host scope on loopback),
    /// neither tentative nor deprecated.
    public var addresses: [String]

    /// Creates a network record.
    public init(interfaceName: String, interfaceIndex: Int, type: NetworkType, addresses: [String]) {
        self.interfaceName = interfaceName
        self.interfaceIndex = interfaceIndex
        self.type = type
        self.addresses = addresses
    }
}

/// The host's networks at one moment, most preferred first (``NetworkType/preferenceRank``, then
/// the interface index).
public struct NetworkSnapshot: Sendable, Hashable, Codable {
    /// The networks, most preferred first.
    public var networks: [HostNetwork]

    /// A snapshot of `networks`, which it sorts.
    public init(networks: [HostNetwork]) {
        self.networks = networks.sorted {
            ($0.type.preferenceRank, $0.interfaceIndex) < ($1.type.preferenceRank, $1.interfaceIndex)
        }
    }

    /// The most preferred network that is not loopback, else loopback, else none.
    public var preferred: HostNetwork? {
        networks.first { $0.type != .loopback } ?? networks.first
    }

    /// The network of interface `name`, if it is up with an address.
    public func network(named name: String) -> HostNetwork? {
        networks.first { $0.interfaceName == name }
    }

    /// What changed since `earlier`: networks that appeared (or whose addresses changed) and
    /// those that went (or whose addresses changed), each most preferred first.
    public func difference(from earlier: NetworkSnapshot) -> (appeared: [HostNetwork], disappeared: [HostNetwork]) {
        (networks.filter { !earlier.networks.contains($0) }, earlier.networks.filter { !networks.contains($0) })
    }
}

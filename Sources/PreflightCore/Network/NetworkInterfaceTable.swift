/// The host's interfaces and addresses as netlink tells them, kept up to date message by message:
/// the state behind the Linux network monitor, pure so that tests feed it recorded messages.
///
/// A link is classified (``NetworkTypeClassifier``, through the function given to
/// ``apply(_:classify:)``) when it first appears and when its name or kind changes. The
/// ``snapshot`` lists the links that are usable (up, with a carrier) and hold a usable address.
/// Bounded: at most ``maximumInterfaces`` interfaces and ``maximumAddressesPerInterface``
/// addresses each; what comes beyond is ignored.
public struct NetworkInterfaceTable: Sendable {
    /// At most this many interfaces are kept.
    public static let maximumInterfaces = 1024
    /// At most this many addresses an interface are kept.
    public static let maximumAddressesPerInterface = 64

    struct Interface: Sendable {
        var link: NetlinkRouteMessage.Link
        var type: NetworkType
        var addresses: [NetlinkRouteMessage.Address] = []
    }

    var interfaces: [Int32: Interface] = [:]
    /// Addresses that came before their link (a dump lists links first, but a race may not).
    var orphanAddresses: [NetlinkRouteMessage.Address] = []

    /// An empty table.
    public init() {}

    /// Forgets everything, before a new dump (after the kernel dropped messages: `ENOBUFS`).
    public mutating func reset() {
        interfaces.removeAll()
        orphanAddresses.removeAll()
    }

    /// Applies one message; `classify` gives a new or renamed link its type.
    public mutating func apply(_ message: NetlinkRouteMessage, classify: (NetlinkRouteMessage.Link) -> NetworkType) {
        switch message {
        case .link(let link):
            if link.removed {
                interfaces[link.index] = nil
                return
            }
            if var known = interfaces[link.index] {
                var link = link
                // A change message may leave out what did not change.
                if link.name == nil { link.name = known.link.name }
                if link.kind == nil { link.kind = known.link.kind }
                if link.name != known.link.name || link.kind != known.link.kind { known.type = classify(link) }
                known.link = link
                interfaces[link.index] = known
            } else if interfaces.count < Self.maximumInterfaces {
                var interface = Interface(link: link, type: classify(link))
                let waiting = orphanAddresses.filter { $0.index == link.index }
                orphanAddresses.removeAll { $0.index == link.index }
                for address in waiting { Self.apply(address, to: &interface) }
                interfaces[link.index] = interface
            }
        case .address(let address):
            guard var interface = interfaces[address.index] else {
                if !address.removed, orphanAddresses.count < Self.maximumAddressesPerInterface { orphanAddresses.append(address) }
                if address.removed { orphanAddresses.removeAll { $0.index == address.index && $0.address == address.address } }
                return
            }
            Self.apply(address, to: &interface)
            interfaces[address.index] = interface
        case .done, .error, .other:
            return
        }
    }

    static func apply(_ address: NetlinkRouteMessage.Address, to interface: inout Interface) {
        interface.addresses.removeAll { $0.address == address.address }
        if !address.removed, interface.addresses.count < maximumAddressesPerInterface { interface.addresses.append(address) }
    }

    /// The usable networks now.
    public var snapshot: NetworkSnapshot {
        NetworkSnapshot(networks: interfaces.values.compactMap { interface in
            guard interface.link.isUsable || interface.link.isLoopback && interface.link.flags & 0x1 != 0 else { return nil }
            let usable = interface.addresses.filter {
                $0.isUsable && ($0.scope == 0 || interface.link.isLoopback)
            }
            let addresses = usable.filter { !$0.isIPv6 }.compactMap(\.address) + usable.filter(\.isIPv6).compactMap(\.address)
            guard !addresses.isEmpty else { return nil }
            return HostNetwork(
                interfaceName: interface.link.name ?? "if\(interface.link.index)", interfaceIndex: Int(interface.link.index),
                type: interface.type, addresses: addresses)
        })
    }
}

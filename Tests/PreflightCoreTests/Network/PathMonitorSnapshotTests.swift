import PreflightCore
import Testing

/// The Apple network monitor's pure part: `NWPathMonitor`'s interfaces and `getifaddrs`' addresses
/// made into snapshots, as a Mac with Wi-Fi, a VPN and a cellular hotspot lists them.
@Suite struct PathMonitorSnapshotTests {
    /// What `getifaddrs` lists on such a Mac: link-local IPv6 on every interface, the VPN without
    /// IPv4, AirDrop's awdl0 with only a link-local address.
    static let addresses: [InterfaceAddressEntry] = [
        InterfaceAddressEntry(interfaceName: "lo0", family: .ipv6, address: "::1"),
        InterfaceAddressEntry(interfaceName: "lo0", family: .ipv4, address: "127.0.0.1"),
        InterfaceAddressEntry(interfaceName: "en0", family: .ipv6, address: "fe80::1c2b:3d4e:5f60:7182"),
        InterfaceAddressEntry(interfaceName: "en0", family: .ipv6, address: "2001:db8:1::7"),
        InterfaceAddressEntry(interfaceName: "en0", family: .ipv4, address: "192.168.1.20"),
        InterfaceAddressEntry(interfaceName: "en0", family: .ipv4, address: "192.168.1.20"),
        InterfaceAddressEntry(interfaceName: "utun3", family: .ipv6, address: "fd00:77::2"),
        InterfaceAddressEntry(interfaceName: "awdl0", family: .ipv6, address: "fe80::a8bb:ccff:fedd:eeff"),
        InterfaceAddressEntry(interfaceName: "pdp_ip0", family: .ipv4, address: "10.64.3.9"),
    ]
    static let interfaces = [
        PathInterface(name: "pdp_ip0", index: 9, appleType: .cellular),
        PathInterface(name: "en0", index: 6, appleType: .wifi),
        PathInterface(name: "utun3", index: 21, appleType: .other),
        PathInterface(name: "awdl0", index: 12, appleType: .other),
        PathInterface(name: "en0", index: 6, appleType: .wifi),
    ]

    @Test func linkLocalIPv6IsFe80Slash10() {
        for address in ["fe80::1", "FE80::1%en0", "febf:ffff::1", "fe9a::2"] {
            #expect(InterfaceAddressEntry.isLinkLocalIPv6(address), "\(address)")
        }
        for address in ["fec0::1", "fe7f::1", "::1", "2001:db8::1", "192.168.1.20", "", "::ffff:169.254.1.1"] {
            #expect(!InterfaceAddressEntry.isLinkLocalIPv6(address), "\(address)")
        }
    }

    @Test func usableAddressesAreIPv4FirstWithoutLinkLocalOrRepeats() {
        #expect(InterfaceAddressEntry.usableAddresses(of: "en0", in: Self.addresses) == ["192.168.1.20", "2001:db8:1::7"])
        #expect(InterfaceAddressEntry.usableAddresses(of: "lo0", in: Self.addresses) == ["127.0.0.1", "::1"])
        #expect(InterfaceAddressEntry.usableAddresses(of: "awdl0", in: Self.addresses).isEmpty)
        #expect(InterfaceAddressEntry.usableAddresses(of: "en1", in: Self.addresses).isEmpty)
    }

    @Test func aSatisfiedPathListsItsInterfacesWithAddressesByPreference() {
        let snapshots = PathMonitorSnapshots(classifier: NetworkTypeClassifier())
        let snapshot = snapshots.snapshot(isSatisfied: true, interfaces: Self.interfaces, addresses: Self.addresses)
        #expect(snapshot.networks == [
            HostNetwork(interfaceName: "en0", interfaceIndex: 6, type: .wifi, addresses: ["192.168.1.20", "2001:db8:1::7"]),
            HostNetwork(interfaceName: "utun3", interfaceIndex: 21, type: .vpn, addresses: ["fd00:77::2"]),
            HostNetwork(interfaceName: "pdp_ip0", interfaceIndex: 9, type: .cellular, addresses: ["10.64.3.9"]),
        ])
        #expect(snapshot.preferred?.interfaceName == "en0")
    }

    @Test func anUnsatisfiedPathHasNoNetworks() {
        let snapshots = PathMonitorSnapshots(classifier: NetworkTypeClassifier())
        #expect(snapshots.snapshot(isSatisfied: false, interfaces: Self.interfaces, addresses: Self.addresses).networks.isEmpty)
    }

    @Test func overridesApplyToApplesInterfaces() throws {
        let classifier = NetworkTypeClassifier(overrides: try NetworkTypeOverrides(parsing: "utun3=ethernet"))
        let snapshot = PathMonitorSnapshots(classifier: classifier)
            .snapshot(isSatisfied: true, interfaces: Self.interfaces, addresses: Self.addresses)
        #expect(snapshot.network(named: "utun3")?.type == .ethernet)
        #expect(snapshot.preferred?.interfaceName == "utun3")
    }

    @Test func onlyChangesAreHandedOut() {
        var snapshots = PathMonitorSnapshots(classifier: NetworkTypeClassifier())
        let wifiOnly = [PathInterface(name: "en0", index: 6, appleType: .wifi)]
        // The first update is handed out even when it is empty: the monitor waits for a first state.
        #expect(snapshots.update(isSatisfied: false, interfaces: [], addresses: []) == NetworkSnapshot(networks: []))
        #expect(snapshots.update(isSatisfied: false, interfaces: wifiOnly, addresses: Self.addresses) == nil)
        let first = snapshots.update(isSatisfied: true, interfaces: wifiOnly, addresses: Self.addresses)
        #expect(first?.networks.map(\.interfaceName) == ["en0"])
        // A path update that changes nothing a call uses (another interface without an address).
        let awdl = wifiOnly + [PathInterface(name: "awdl0", index: 12, appleType: .other)]
        #expect(snapshots.update(isSatisfied: true, interfaces: awdl, addresses: Self.addresses) == nil)
        // An address change is a change.
        let renumbered = Self.addresses.filter { $0.address != "2001:db8:1::7" }
        #expect(snapshots.update(isSatisfied: true, interfaces: wifiOnly, addresses: renumbered)?.networks.first?.addresses == ["192.168.1.20"])
        #expect(snapshots.last?.networks.first?.addresses == ["192.168.1.20"])
    }
}

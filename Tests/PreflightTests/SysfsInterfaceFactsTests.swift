import Foundation
import Logging
@testable import PreflightNIO
import PreflightCore
import Testing

/// What the Linux monitor reads of an interface in sysfs, on trees laid out as the kernel lays
/// them out for a Wi-Fi card (iwlwifi), a QMI modem (qmi_wwan) and a wired NIC (e1000e), and the
/// type each then gets.
@Suite struct SysfsInterfaceFactsTests {
    /// A sysfs `class/net` tree of three interfaces in a temporary directory.
    static func makeTree() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sysfs-\(UUID().uuidString)")
        let files = FileManager.default
        func interface(_ name: String, type: String, uevent: String, driver: String, wireless: Bool = false) throws {
            let base = root.appendingPathComponent(name)
            try files.createDirectory(at: base.appendingPathComponent("device"), withIntermediateDirectories: true)
            try type.write(to: base.appendingPathComponent("type"), atomically: true, encoding: .utf8)
            try uevent.write(to: base.appendingPathComponent("uevent"), atomically: true, encoding: .utf8)
            try files.createSymbolicLink(
                atPath: base.appendingPathComponent("device/driver").path, withDestinationPath: "../../../bus/pci/drivers/\(driver)")
            if wireless {
                try files.createDirectory(at: base.appendingPathComponent("wireless"), withIntermediateDirectories: true)
                try files.createSymbolicLink(atPath: base.appendingPathComponent("phy80211").path, withDestinationPath: "../../ieee80211/phy0")
            }
        }
        try interface("wlp2s0", type: "1\n", uevent: "DEVTYPE=wlan\nINTERFACE=wlp2s0\nIFINDEX=3\n", driver: "iwlwifi", wireless: true)
        try interface("wwan0", type: "1\n", uevent: "DEVTYPE=wwan\nINTERFACE=wwan0\nIFINDEX=4\n", driver: "qmi_wwan")
        try interface("enp0s31f6", type: "1\n", uevent: "INTERFACE=enp0s31f6\nIFINDEX=2\n", driver: "e1000e")
        return root
    }

    @Test func factsAndTypesFromATree() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(at: root) }
        let classifier = NetworkTypeClassifier()
        let wifi = SysfsInterfaceFacts.facts(ofInterface: "wlp2s0", root: root.path)
        #expect(wifi.isWireless && wifi.deviceType == "wlan" && wifi.driver == "iwlwifi" && wifi.hardwareType == 1)
        #expect(classifier.classify(wifi) == .wifi)
        let modem = SysfsInterfaceFacts.facts(ofInterface: "wwan0", root: root.path)
        #expect(!modem.isWireless && modem.deviceType == "wwan" && modem.driver == "qmi_wwan")
        #expect(classifier.classify(modem) == .cellular)
        let wired = SysfsInterfaceFacts.facts(ofInterface: "enp0s31f6", root: root.path)
        #expect(wired.deviceType == nil && wired.driver == "e1000e" && classifier.classify(wired) == .ethernet)
        // Netlink's facts are kept, sysfs's added.
        let link = NetlinkRouteMessage.Link(index: 3, removed: false, name: "wlp2s0", flags: 0x11043, hardwareType: 1, kind: nil)
        #expect(classifier.classify(SysfsInterfaceFacts.facts(of: link, root: root.path)) == .wifi)
        // A name that would leave the tree reads nothing.
        for name in ["../wlp2s0", ".", "..", ""] {
            let facts = SysfsInterfaceFacts.facts(ofInterface: name, root: root.appendingPathComponent("wwan0").path)
            #expect(facts.deviceType == nil && facts.driver == nil && facts.hardwareType == nil, "\(name)")
        }
    }

    /// A run's own overrides (the command line's `--network-type`) type its host candidates, as
    /// they type its network monitor's networks, without the environment variable.
    @Test func aRunsOverridesTypeItsHostCandidates() throws {
        let entries = [
            InterfaceAddressEntry(interfaceName: "lab0", family: .ipv4, address: "198.18.40.2"),
            InterfaceAddressEntry(interfaceName: "lab1", family: .ipv4, address: "198.18.41.2"),
        ]
        let overrides = try NetworkTypeOverrides(parsing: "lab0=wifi,lab1=cellular")
        let hosts = HostInterfaces.enumerate(loopback: false, includesIPv6: false, entries: entries, overrides: overrides)
        #expect(hosts.map(\.address) == ["198.18.40.2", "198.18.41.2"])
        #expect(hosts.map(\.networkType) == [NetworkType.wifi.rawValue, NetworkType.cellular.rawValue])
        // Cellular first when it is the one said to be wired: the order follows the types.
        let swapped = HostInterfaces.enumerate(
            loopback: false, includesIPv6: false, entries: entries, overrides: try NetworkTypeOverrides(parsing: "lab0=cellular,lab1=ethernet"))
        #expect(swapped.map(\.address) == ["198.18.41.2", "198.18.40.2"])
    }

    /// The host candidates of loopback: typed Loopback.
    @Test func loopbackHostsAreTypedLoopback() {
        let hosts = HostInterfaces.enumerate(loopback: true, includesIPv6: false)
        #expect(hosts.first?.address == "127.0.0.1")
        #expect(hosts.allSatisfy { $0.networkType == "Loopback" })
    }
}

/// The real monitor on this host's own netlink (its networks are not changed here: the
/// namespace test of `preflight networks --watch` changes its own).
@Suite struct NetworkMonitorTests {
    @Test func startsWithTheHostsNetworksAndStops() async throws {
        let monitor = try await NetworkMonitor.start(overrides: NetworkTypeOverrides(), logger: Logger(label: "test"))
        let snapshot = monitor.snapshot
        #expect(snapshot.networks.contains { $0.type == .loopback && $0.addresses.contains("127.0.0.1") }, "\(snapshot)")
        var changes = monitor.changes().makeAsyncIterator()
        #expect(await changes.next() == snapshot)
        monitor.stop()
        #expect(await changes.next() == nil)
        var late = monitor.changes().makeAsyncIterator()
        #expect(await late.next() == nil)
    }
}

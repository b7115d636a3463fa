import PreflightCore
import Testing

/// The classifier on the facts real interfaces show (what netlink and sysfs say of each kind of
/// device, as the kernel's drivers set them), the reference's preference order, and overrides.
@Suite struct NetworkTypeClassifierTests {
    /// Interfaces as Linux and Apple describe them.
    static let interfaces: [(NetworkInterfaceFacts, NetworkType)] = [
        // iwlwifi: a `wireless` directory, `phy80211`, DEVTYPE=wlan.
        (NetworkInterfaceFacts(name: "wlp2s0", hardwareType: 1, isWireless: true, deviceType: "wlan", driver: "iwlwifi"), .wifi),
        // A Wi-Fi driver without DEVTYPE (older mac80211 drivers): sysfs alone.
        (NetworkInterfaceFacts(name: "wlan0", hardwareType: 1, isWireless: true, driver: "brcmfmac"), .wifi),
        (NetworkInterfaceFacts(name: "enp0s31f6", hardwareType: 1, driver: "e1000e"), .ethernet),
        (NetworkInterfaceFacts(name: "lo", hardwareType: 772, isLoopback: true), .loopback),
        // qmi_wwan and cdc_mbim modems: DEVTYPE=wwan; the MBIM one raw IP.
        (NetworkInterfaceFacts(name: "wwp0s20f0u6i12", hardwareType: 1, deviceType: "wwan", driver: "qmi_wwan"), .cellular),
        (NetworkInterfaceFacts(name: "wwan0", hardwareType: 519, driver: "cdc_mbim"), .cellular),
        // A cdc_ether modem (FLAG_WWAN: DEVTYPE=wwan) against a cdc_ether USB Ethernet adapter.
        (NetworkInterfaceFacts(name: "usb0", hardwareType: 1, deviceType: "wwan", driver: "cdc_ether"), .cellular),
        (NetworkInterfaceFacts(name: "enx00e04c680001", hardwareType: 1, driver: "cdc_ether"), .ethernet),
        // Android's Qualcomm data interfaces.
        (NetworkInterfaceFacts(name: "rmnet_data0", hardwareType: 519), .cellular),
        (NetworkInterfaceFacts(name: "ccmni0", hardwareType: 65534), .cellular),
        (NetworkInterfaceFacts(name: "wg0", hardwareType: 65534, linkKind: "wireguard"), .vpn),
        (NetworkInterfaceFacts(name: "tun0", hardwareType: 65534, linkKind: "tun"), .vpn),
        (NetworkInterfaceFacts(name: "tap0", hardwareType: 1, linkKind: "tun"), .vpn),
        (NetworkInterfaceFacts(name: "ppp0", hardwareType: 512), .vpn),
        (NetworkInterfaceFacts(name: "gre1", hardwareType: 778, linkKind: "gre"), .vpn),
        // The lab's veth pairs and bridges are Ethernet to the kernel.
        (NetworkInterfaceFacts(name: "vc0", hardwareType: 1, linkKind: "veth"), .ethernet),
        (NetworkInterfaceFacts(name: "br0", hardwareType: 1, linkKind: "bridge"), .ethernet),
        // Apple's NWInterface types.
        (NetworkInterfaceFacts(name: "en0", appleType: .wifi), .wifi),
        (NetworkInterfaceFacts(name: "pdp_ip0", appleType: .cellular), .cellular),
        (NetworkInterfaceFacts(name: "en5", appleType: .wiredEthernet), .ethernet),
        (NetworkInterfaceFacts(name: "utun3", appleType: .other), .vpn),
        (NetworkInterfaceFacts(name: "ipsec0", appleType: .other), .vpn),
        (NetworkInterfaceFacts(name: "awdl0", appleType: .other), .unknown),
        (NetworkInterfaceFacts(name: "lo0", appleType: .loopback), .loopback),
    ]

    @Test func realInterfacesGetTheirTypes() {
        let classifier = NetworkTypeClassifier()
        for (facts, type) in Self.interfaces {
            #expect(classifier.classify(facts) == type, "\(facts.name)")
        }
    }

    @Test func overridesComeFirst() throws {
        let classifier = NetworkTypeClassifier(overrides: try NetworkTypeOverrides(parsing: " vc0=wifi, lte*=Cellular ,lo=ethernet"))
        #expect(classifier.classify(NetworkInterfaceFacts(name: "vc0", hardwareType: 1, linkKind: "veth")) == .wifi)
        #expect(classifier.classify(NetworkInterfaceFacts(name: "vc01", hardwareType: 1, linkKind: "veth")) == .ethernet)
        #expect(classifier.classify(NetworkInterfaceFacts(name: "lte-up", hardwareType: 1)) == .cellular)
        #expect(classifier.classify(NetworkInterfaceFacts(name: "lo", isLoopback: true)) == .ethernet)
        #expect(try NetworkTypeOverrides(parsing: "") == NetworkTypeOverrides())
    }

    @Test(arguments: [
        "vc0", "vc0=", "=wifi", "vc0=satellite", "a*b=wifi", "a/b=wifi", "sixteen-bytes-xx=wifi", "vc0=wifi=x",
        Array(repeating: "a=wifi", count: 65).joined(separator: ","),
    ])
    func badOverridesAreRefused(_ text: String) {
        #expect(throws: PreflightError.self) { try NetworkTypeOverrides(parsing: text) }
        do {
            _ = try NetworkTypeOverrides(parsing: text)
        } catch {
            #expect(error.code == .invalidArgument && error.message.hasPrefix("network types:"))
        }
    }

    /// The TVOCall reference: "ETHERNET, LOOPBACK, WIFI, VPN, and CELLULAR".
    @Test func thePreferenceOrderIsTheReferences() {
        let order = NetworkType.allCases.sorted { $0.isPreferred(over: $1) }.map(\.description)
        #expect(order == ["ETHERNET", "LOOPBACK", "WIFI", "VPN", "UNKNOWN", "CELLULAR"])
        #expect(NetworkType.wifi.isPreferred(over: .cellular) && !NetworkType.cellular.isPreferred(over: .wifi))
        #expect(!NetworkType.wifi.isPreferred(over: .wifi))
        let snapshot = NetworkSnapshot(networks: [
            HostNetwork(interfaceName: "wwan0", interfaceIndex: 2, type: .cellular, addresses: ["198.18.1.2"]),
            HostNetwork(interfaceName: "lo", interfaceIndex: 1, type: .loopback, addresses: ["127.0.0.1"]),
            HostNetwork(interfaceName: "wlan0", interfaceIndex: 3, type: .wifi, addresses: ["198.18.2.2"]),
        ])
        #expect(snapshot.networks.map(\.interfaceName) == ["lo", "wlan0", "wwan0"])
        #expect(snapshot.preferred?.interfaceName == "wlan0")
        let earlier = NetworkSnapshot(networks: Array(snapshot.networks.prefix(1)) + [snapshot.networks[2]])
        let difference = snapshot.difference(from: earlier)
        #expect(difference.appeared.map(\.interfaceName) == ["wlan0"] && difference.disappeared.isEmpty)
        #expect(earlier.difference(from: snapshot).disappeared.map(\.interfaceName) == ["wlan0"])
    }
}

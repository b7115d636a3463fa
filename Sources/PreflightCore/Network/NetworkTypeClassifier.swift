/// What the system says about a network interface: the facts ``NetworkTypeClassifier`` reads.
///
/// On Linux they come from netlink (`RTM_NEWLINK`: name, flags, hardware type, link kind) and
/// sysfs (`/sys/class/net/<name>/wireless`, `phy80211`, `uevent`'s `DEVTYPE`, the `device/driver`
/// link); on Apple platforms from `NWInterface` (its type and name).
public struct NetworkInterfaceFacts: Sendable, Hashable {
    /// What Apple's Network framework calls the interface (`NWInterface.InterfaceType`).
    public enum AppleType: String, Sendable, Hashable {
        /// `.wifi`.
        case wifi
        /// `.cellular`.
        case cellular
        /// `.wiredEthernet`.
        case wiredEthernet
        /// `.loopback`.
        case loopback
        /// `.other` (VPN tunnels, AWDL, bridges…).
        case other
    }

    /// The interface's name (`eth0`, `wlan0`, `wwan0`, `en0`, `pdp_ip0`…).
    public var name: String
    /// Linux's hardware type (`ARPHRD_*`, `/sys/class/net/<name>/type`): 1 Ethernet, 772
    /// loopback, 512 PPP, 519 raw IP, 65534 none (tun, WireGuard)…
    public var hardwareType: UInt16?
    /// `IFF_LOOPBACK`.
    public var isLoopback: Bool
    /// A `wireless` or `phy80211` entry in sysfs: the driver is a Wi-Fi driver.
    public var isWireless: Bool
    /// `DEVTYPE` of the interface's `uevent` (`wlan`, `wwan`, `vlan`, `bridge`…).
    public var deviceType: String?
    /// The name of the device's driver (`iwlwifi`, `qmi_wwan`, `cdc_ether`, `e1000e`…).
    public var driver: String?
    /// The link's kind (netlink `IFLA_INFO_KIND`: `veth`, `wireguard`, `tun`, `bridge`…).
    public var linkKind: String?
    /// The Network framework's type, on Apple platforms.
    public var appleType: AppleType?

    /// Creates the facts of an interface; what the system did not say stays `nil` or `false`.
    public init(
        name: String, hardwareType: UInt16? = nil, isLoopback: Bool = false, isWireless: Bool = false, deviceType: String? = nil,
        driver: String? = nil, linkKind: String? = nil, appleType: AppleType? = nil
    ) {
        self.name = name
        self.hardwareType = hardwareType
        self.isLoopback = isLoopback
        self.isWireless = isWireless
        self.deviceType = deviceType
        self.driver = driver
        self.linkKind = linkKind
        self.appleType = appleType
    }
}

/// Gives an interface its ``NetworkType`` from what the system says, first rule that applies:
///
/// 1. **An override** names the interface (``NetworkTypeOverrides``): its type. The lab marks its
///    veth interfaces, which the kernel calls Ethernet, as Wi-Fi or cellular this way.
/// 2. **Loopback**: the `IFF_LOOPBACK` flag, hardware type 772, or Apple's `loopback`.
/// 3. **Wi-Fi**: a `wireless` or `phy80211` entry in sysfs, `DEVTYPE=wlan`, or Apple's `wifi`.
/// 4. **Cellular**: `DEVTYPE=wwan` (the kernel's mark of a modem's network device, which
///    `cdc_ether`, `cdc_ncm` and `qmi_wwan` set for modems), a modem driver (`qmi_wwan`,
///    `cdc_mbim`, `rmnet`, `rmnet_ipa`, `ipa`, `mhi_net`, `huawei_cdc_ncm`, `sierra_net`), hardware
///    type 519 (raw IP, Qualcomm's rmnet), a modem's name (`wwan`, `rmnet`, `ccmni`, `pdp_ip`), or
///    Apple's `cellular`.
/// 5. **VPN**: a tunnel's link kind (`wireguard`, `tun`, `ppp`, `ipip`, `gre`, `sit`, `ip6tnl`,
///    `vti`, `vti6`, `xfrm`), a tunnel's hardware type (512 PPP, 768 and 769 IP tunnels, 776 SIT,
///    778 GRE, 823 IPv6 GRE, 65534 none as tun and WireGuard use), or a tunnel's name (`tun`,
///    `tap`, `wg`, `ppp`, `utun`, `ipsec`).
/// 6. Apple's `wiredEthernet`: **Ethernet**; Apple's `other`: **unknown**.
/// 7. Anything else on Linux: **Ethernet** (veth, bridges, VLANs and real NICs alike).
///
/// Pure: no I/O; the monitors gather the facts.
public struct NetworkTypeClassifier: Sendable {
    /// The overrides, consulted first.
    public var overrides: NetworkTypeOverrides

    /// Creates a classifier with `overrides` (none by default).
    public init(overrides: NetworkTypeOverrides = NetworkTypeOverrides()) {
        self.overrides = overrides
    }

    static let modemDrivers: Set<String> = [
        "qmi_wwan", "cdc_mbim", "rmnet", "rmnet_ipa", "ipa", "mhi_net", "huawei_cdc_ncm", "sierra_net",
    ]
    static let modemNamePrefixes = ["wwan", "rmnet", "ccmni", "pdp_ip"]
    static let tunnelKinds: Set<String> = ["wireguard", "tun", "ppp", "ipip", "gre", "sit", "ip6tnl", "vti", "vti6", "xfrm"]
    static let tunnelHardwareTypes: Set<UInt16> = [512, 768, 769, 776, 778, 823, 65534]
    static let tunnelNamePrefixes = ["tun", "tap", "wg", "ppp", "utun", "ipsec"]

    /// The interface's type, by the rules above.
    public func classify(_ facts: NetworkInterfaceFacts) -> NetworkType {
        if let type = overrides.type(of: facts.name) { return type }
        if facts.isLoopback || facts.hardwareType == 772 || facts.appleType == .loopback { return .loopback }
        if facts.isWireless || facts.deviceType == "wlan" || facts.appleType == .wifi { return .wifi }
        if facts.appleType == .cellular || facts.deviceType == "wwan" || facts.driver.map(Self.modemDrivers.contains) == true
            || facts.hardwareType == 519 || Self.modemNamePrefixes.contains(where: facts.name.hasPrefix)
        {
            return .cellular
        }
        if facts.linkKind.map(Self.tunnelKinds.contains) == true || facts.hardwareType.map(Self.tunnelHardwareTypes.contains) == true
            || Self.tunnelNamePrefixes.contains(where: facts.name.hasPrefix)
        {
            return .vpn
        }
        switch facts.appleType {
        case .wiredEthernet: return .ethernet
        case .other: return .unknown
        default: return .ethernet
        }
    }
}

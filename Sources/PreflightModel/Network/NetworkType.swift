/// The kind of network an interface is on, as the TVOCall reference orders them for a call's
/// preferred network: "ETHERNET, LOOPBACK, WIFI, VPN, and CELLULAR".
///
/// Raw values are WebRTC's names (an ICE candidate's `networkType` in the reports). `unknown`, a
/// network the system says nothing about, ranks after VPN and before cellular: unlike cellular
/// it is not known to be metered.
public enum NetworkType: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// Wired Ethernet (and anything Linux calls Ethernet that nothing else claims).
    case ethernet = "Ethernet"
    /// The loopback interface.
    case loopback = "Loopback"
    /// A wireless LAN.
    case wifi = "Wifi"
    /// A tunnel: WireGuard, tun, tap, PPP, IPsec.
    case vpn = "Vpn"
    /// The system says nothing about it.
    case unknown = "Unknown"
    /// A mobile data modem.
    case cellular = "Cellular"

    /// The reference's rank: 0 is the most preferred (Ethernet), 5 the least (cellular).
    public var preferenceRank: Int {
        switch self {
        case .ethernet: 0
        case .loopback: 1
        case .wifi: 2
        case .vpn: 3
        case .unknown: 4
        case .cellular: 5
        }
    }

    /// Whether a call on `other` should move to this network.
    public func isPreferred(over other: NetworkType) -> Bool {
        preferenceRank < other.preferenceRank
    }

    /// The name as the reference writes it ("ETHERNET", "WIFI"…).
    public var description: String { rawValue.uppercased() }

    /// Reads a type from text, any case, as an override names it: `ethernet`, `loopback`, `wifi`
    /// (or `wi-fi`, `wlan`), `vpn`, `cellular` (or `mobile`, `wwan`), `unknown`.
    public init?(name: String) {
        switch name.lowercased() {
        case "ethernet", "wired": self = .ethernet
        case "loopback": self = .loopback
        case "wifi", "wi-fi", "wlan": self = .wifi
        case "vpn": self = .vpn
        case "cellular", "mobile", "wwan": self = .cellular
        case "unknown": self = .unknown
        default: return nil
        }
    }
}

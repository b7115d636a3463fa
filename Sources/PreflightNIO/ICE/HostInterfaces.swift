import Foundation
import NIOCore
import PreflightCore

/// The host addresses an ICE agent offers as host candidates, read from the interfaces.
public enum HostInterfaces {
    /// Whether a signaling URL's host is a loopback address: an edge on loopback is reached from
    /// loopback only, any other from the other interfaces.
    public static func isLoopback(url: String) -> Bool {
        url.contains("://127.") || url.contains("://localhost") || url.contains("://[::1]")
    }

    /// The host addresses to offer, IPv4 first: every interface's IPv4 address, and its IPv6
    /// addresses when `includesIPv6` (not link-local, whose scope a candidate cannot carry).
    /// Loopback addresses when `loopback`, else the others; never empty of IPv4 (the wildcard or
    /// 127.0.0.1 stands in).
    public static func enumerate(loopback: Bool, includesIPv6: Bool) -> [ICEAgent.HostInterface] {
        var addresses: [ICEAgent.HostInterface] = []
        if let devices = try? System.enumerateDevices() {
            for device in devices {
                guard let address = device.address, let ip = address.ipAddress else { continue }
                let isIPv6 = address.protocol == .inet6
                guard address.protocol == .inet || (isIPv6 && includesIPv6 && !ip.lowercased().hasPrefix("fe80")) else { continue }
                let isLoopback = ip.hasPrefix("127.") || ip == "::1"
                if isLoopback == loopback, !addresses.contains(where: { $0.address == ip }) {
                    addresses.append(ICEAgent.HostInterface(
                        address: ip, socket: isIPv6 ? .ipv6 : .ipv4, networkType: networkType(ip, device: device.name)))
                }
            }
        }
        if !addresses.contains(where: { $0.socket == .ipv4 }) {
            let ip = loopback ? "127.0.0.1" : "0.0.0.0"
            addresses.insert(ICEAgent.HostInterface(address: ip, socket: .ipv4, networkType: networkType(ip)), at: 0)
        }
        // IPv4 first: the edge's candidates are IPv4 unless it runs on IPv6.
        return addresses.filter { $0.socket == .ipv4 } + addresses.filter { $0.socket == .ipv6 }
    }

    /// The interface's kind as WebRTC names it: from Linux's sysfs (ARPHRD type 772 is loopback,
    /// 1 Ethernet, a `wireless` directory Wi-Fi, `tun`/`wg`/`ppp` names VPN); else from the address.
    public static func networkType(_ ip: String, device: String = "") -> String {
        let byAddress = ICEAgent.networkType(ofAddress: ip)
        if byAddress == "Loopback" { return byAddress }
        #if os(Linux)
            if !device.isEmpty, !device.contains("/") {
                let base = "/sys/class/net/\(device)"
                if FileManager.default.fileExists(atPath: base + "/wireless") { return "Wifi" }
                if device.hasPrefix("tun") || device.hasPrefix("wg") || device.hasPrefix("ppp") { return "Vpn" }
                if let type = try? String(contentsOfFile: base + "/type", encoding: .utf8) {
                    switch type.trimmingCharacters(in: .whitespacesAndNewlines) {
                    case "1": return "Ethernet"
                    case "772": return "Loopback"
                    default: break
                    }
                }
            }
        #endif
        return byAddress
    }
}

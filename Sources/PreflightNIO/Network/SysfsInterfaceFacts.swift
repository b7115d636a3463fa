import Foundation
import PreflightCore

/// The facts of a Linux interface for ``NetworkTypeClassifier``: what its netlink message says,
/// and what sysfs adds (`/sys/class/net/<name>/`: `wireless` or `phy80211`, `uevent`'s
/// `DEVTYPE`, the `device/driver` link's name). Inside a network namespace sysfs shows the
/// namespace's interfaces only when it was mounted there (`ip netns exec` does); otherwise the
/// netlink facts alone decide.
enum SysfsInterfaceFacts {
    static func facts(of link: NetlinkRouteMessage.Link, root: String = "/sys/class/net") -> NetworkInterfaceFacts {
        let facts = NetworkInterfaceFacts(
            name: link.name ?? "", hardwareType: link.hardwareType, isLoopback: link.isLoopback, linkKind: link.kind)
        return adding(to: facts, root: root)
    }

    /// The facts of interface `name` from sysfs alone (its hardware type from `type`): for a
    /// caller that knows only the name.
    static func facts(ofInterface name: String, root: String = "/sys/class/net") -> NetworkInterfaceFacts {
        var facts = NetworkInterfaceFacts(name: name)
        if isSafe(name), let type = try? String(contentsOfFile: "\(root)/\(name)/type", encoding: .utf8) {
            facts.hardwareType = UInt16(type.trimmingCharacters(in: .whitespacesAndNewlines))
            facts.isLoopback = facts.hardwareType == 772
        }
        return adding(to: facts, root: root)
    }

    /// A name that stays inside sysfs's directory: a kernel name never holds "/", but the
    /// parser is not the kernel's only possible voice.
    static func isSafe(_ name: String) -> Bool {
        !name.isEmpty && !name.contains("/") && name != "." && name != ".."
    }

    static func adding(to facts: NetworkInterfaceFacts, root: String) -> NetworkInterfaceFacts {
        var facts = facts
        let name = facts.name
        guard isSafe(name) else { return facts }
        let base = "\(root)/\(name)"
        let files = FileManager.default
        facts.isWireless = files.fileExists(atPath: base + "/wireless") || files.fileExists(atPath: base + "/phy80211")
        if let uevent = try? String(contentsOfFile: base + "/uevent", encoding: .utf8) {
            for line in uevent.prefix(4096).split(separator: "\n") where line.hasPrefix("DEVTYPE=") {
                facts.deviceType = String(line.dropFirst("DEVTYPE=".count).prefix(32))
            }
        }
        if let target = try? files.destinationOfSymbolicLink(atPath: base + "/device/driver") {
            facts.driver = String(target.split(separator: "/").last ?? "").prefix(64).description
        }
        return facts
    }
}

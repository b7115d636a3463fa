import Foundation

/// The kernel's UDP counters that tell a local drop from a network one (Linux `/proc/net/snmp`
/// and `/proc/net/snmp6`).
public enum UDPStatistics {
    /// Datagrams the host dropped because a socket's receive buffer was full (`RcvbufErrors` of
    /// `Udp` plus `Udp6RcvbufErrors`), since boot; `nil` where the counters cannot be read (not
    /// Linux, or `/proc` not mounted). Host-wide: other sockets' drops count too, so a change
    /// during a probe is a reason to distrust it, not proof that the probe lost packets.
    public static func receiveBufferErrors() -> Int? {
        guard let snmp = try? String(contentsOfFile: "/proc/net/snmp", encoding: .utf8) else { return nil }
        var total: Int?
        let lines = snmp.split(separator: "\n")
        // "Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors …" then the values' line.
        for (index, line) in lines.enumerated() where line.hasPrefix("Udp: ") && index + 1 < lines.count {
            let names = line.split(separator: " ")
            let values = lines[index + 1].split(separator: " ")
            guard values.first == "Udp:", let column = names.firstIndex(of: "RcvbufErrors"), column < values.count else { continue }
            total = Int(values[column])
            break
        }
        if let snmp6 = try? String(contentsOfFile: "/proc/net/snmp6", encoding: .utf8) {
            for line in snmp6.split(separator: "\n") where line.hasPrefix("Udp6RcvbufErrors") {
                if let value = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).last.flatMap({ Int($0) }) {
                    total = (total ?? 0) + value
                }
            }
        }
        return total
    }
}

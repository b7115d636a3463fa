import NIOCore
import PreflightCore

extension InterfaceAddressEntry {
    /// The entry of a device `getifaddrs` lists (through NIO's `System.enumerateDevices()`), when
    /// it carries an IPv4 or IPv6 address.
    init?(device: NIONetworkDevice) {
        guard let address = device.address, let text = address.ipAddress else { return nil }
        switch address.protocol {
        case .inet: self.init(interfaceName: device.name, family: .ipv4, address: text)
        case .inet6: self.init(interfaceName: device.name, family: .ipv6, address: text)
        default: return nil
        }
    }

    /// Every IP address of the host's interfaces now, from `getifaddrs`; none when it fails.
    static func system() -> [InterfaceAddressEntry] {
        ((try? System.enumerateDevices()) ?? []).compactMap(InterfaceAddressEntry.init(device:))
    }
}

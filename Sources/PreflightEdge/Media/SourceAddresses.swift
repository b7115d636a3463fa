import NIOCore

#if os(Linux)
import Glibc

/// The `SocketAddress` of each source a media thread has heard, kept so that a datagram from a
/// known source costs a lookup instead of a new address (a heap box and its text). Bounded: at
/// ``capacity`` sources the table starts again empty, so a flood of forged sources costs what
/// an address per datagram costs, never memory.
struct SourceAddresses {
    /// An address's bytes: IPv4 in `low`, IPv6 in both words, the port and family in `port`.
    struct Key: Hashable {
        var high: UInt64
        var low: UInt64
        var port: UInt32
        var scope: UInt32
    }

    let capacity: Int
    private var addresses: [Key: SocketAddress] = [:]

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Sources known now.
    var count: Int { addresses.count }

    /// The address in `name`; `nil` for a family other than IPv4 and IPv6.
    mutating func address(of name: UnsafePointer<sockaddr>, length: socklen_t) -> SocketAddress? {
        guard let key = Self.key(of: name, length: length) else { return nil }
        if let known = addresses[key] { return known }
        guard let address = DedicatedMediaSocket.address(of: name, length: length) else { return nil }
        if addresses.count >= capacity { addresses.removeAll(keepingCapacity: true) }
        addresses[key] = address
        return address
    }

    /// The key of an address, read at the offsets Linux gives `sockaddr_in` (port at 2, address
    /// at 4) and `sockaddr_in6` (port at 2, address at 8, scope at 24).
    static func key(of name: UnsafePointer<sockaddr>, length: socklen_t) -> Key? {
        let raw = UnsafeRawPointer(name)
        let port = UInt32(raw.loadUnaligned(fromByteOffset: 2, as: UInt16.self))
        switch Int32(name.pointee.sa_family) {
        case AF_INET where length >= 8:
            return Key(high: 0, low: UInt64(raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self)), port: port | 4 << 16, scope: 0)
        case AF_INET6 where length >= 28:
            return Key(
                high: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self), low: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self),
                port: port | 6 << 16, scope: raw.loadUnaligned(fromByteOffset: 24, as: UInt32.self))
        default:
            return nil
        }
    }
}
#endif

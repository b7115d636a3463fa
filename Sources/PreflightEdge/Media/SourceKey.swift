import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A UDP source's address and port as plain words: what the media tables are keyed by, so that a
/// datagram's source is found with one hash of 24 bytes, read straight from the `sockaddr` the
/// kernel filled in, instead of a `SocketAddress` made (a heap box) and hashed per datagram.
package struct SourceKey: Hashable, Sendable {
    /// IPv6: the address's first 8 bytes; IPv4: 0.
    var high: UInt64
    /// IPv6: the address's last 8 bytes; IPv4: the 4 bytes of the address.
    var low: UInt64
    /// The port (network order) in the low 16 bits, the family (4 or 6) above, and the IPv6 scope
    /// in the high 32 bits.
    var portFamilyScope: UInt64

    /// A key no address has (family 0): for a datagram whose source has no key.
    static let unknown = SourceKey(high: 0, low: 0, portFamilyScope: 0)

    private init(high: UInt64, low: UInt64, portFamilyScope: UInt64) {
        self.high = high
        self.low = low
        self.portFamilyScope = portFamilyScope
    }

    /// The same address without its port: two keys with the same host are the same host.
    var host: SourceKey {
        var host = self
        host.portFamilyScope &= ~0xFFFF
        return host
    }

    /// The key of an IPv4 or IPv6 address; `nil` for any other (a Unix domain socket).
    init?(_ address: SocketAddress) {
        switch address {
        case .v4, .v6:
            guard let key = address.withSockAddr({ name, length in Self(name: name, length: length, family: address.protocol) })
            else { return nil }
            self = key
        case .unixDomainSocket:
            return nil
        }
    }

    /// The address as a `sockaddr` (`sockaddr_in` or `sockaddr_in6`) on the stack, for a send
    /// that reaches it without a `SocketAddress` (a heap box, reference-counted on every copy);
    /// `nil`, and `body` not called, for ``unknown``. Written at the offsets the key is read from.
    func withSockAddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result? {
        let (family, length): (Int32, Int)
        switch portFamilyScope >> 16 & 0xFFFF {
        case 4: (family, length) = (AF_INET, 16)
        case 6: (family, length) = (AF_INET6, 28)
        default: return nil
        }
        // 32 zeroed bytes, 8-aligned: room for either.
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &words) { bytes in
            #if canImport(Darwin)
            bytes.storeBytes(of: UInt8(length), toByteOffset: 0, as: UInt8.self)
            bytes.storeBytes(of: UInt8(family), toByteOffset: 1, as: UInt8.self)
            #else
            bytes.storeBytes(of: UInt16(family), toByteOffset: 0, as: UInt16.self)
            #endif
            bytes.storeBytes(of: UInt16(truncatingIfNeeded: portFamilyScope), toByteOffset: 2, as: UInt16.self)
            if family == AF_INET {
                bytes.storeBytes(of: UInt32(truncatingIfNeeded: low), toByteOffset: 4, as: UInt32.self)
            } else {
                bytes.storeBytes(of: high, toByteOffset: 8, as: UInt64.self)
                bytes.storeBytes(of: low, toByteOffset: 16, as: UInt64.self)
                bytes.storeBytes(of: UInt32(truncatingIfNeeded: portFamilyScope >> 32), toByteOffset: 24, as: UInt32.self)
            }
            return bytes.withMemoryRebound(to: sockaddr.self) { name in
                name.baseAddress.map { body($0, socklen_t(length)) }
            }
        }
    }

    #if os(Linux)
    /// The key of the address the kernel wrote for a received datagram; `nil` for another family
    /// or a length too short for its family.
    init?(name: UnsafePointer<sockaddr>, length: socklen_t) {
        switch Int32(name.pointee.sa_family) {
        case AF_INET: self.init(name: name, length: Int(length), family: .inet)
        case AF_INET6: self.init(name: name, length: Int(length), family: .inet6)
        default: return nil
        }
    }
    #endif

    /// Reads the words at the offsets both Linux and the BSDs give `sockaddr_in` (port at 2,
    /// address at 4) and `sockaddr_in6` (port at 2, address at 8, scope at 24).
    private init?(name: UnsafePointer<sockaddr>, length: Int, family: NIOBSDSocket.ProtocolFamily) {
        let raw = UnsafeRawPointer(name)
        let port = UInt64(raw.loadUnaligned(fromByteOffset: 2, as: UInt16.self))
        switch family {
        case .inet where length >= 8:
            high = 0
            low = UInt64(raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
            portFamilyScope = port | 4 << 16
        case .inet6 where length >= 28:
            high = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            low = raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
            portFamilyScope = port | 6 << 16 | UInt64(raw.loadUnaligned(fromByteOffset: 24, as: UInt32.self)) << 32
        default:
            return nil
        }
    }
}

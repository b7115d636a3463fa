import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The source a connection counts under for the HTTP listener's caps (``EdgeHTTPLimits``): an
/// IPv4 address whole (its /32), an IPv6 address by its first ``EdgeHTTPLimits/ipv6PrefixLength``
/// bits (a /64 by default).
///
/// Why a prefix for IPv6: a /64 is one subnet (RFC 4291, "IP Version 6 Addressing Architecture",
/// §2.5.1: 64-bit interface identifiers), and any host on it may take addresses in it at will
/// (RFC 4862, "IPv6 Stateless Address Autoconfiguration"; RFC 8981, "Temporary Address
/// Extensions for Stateless Address Autoconfiguration in IPv6"), so one attacker with one /64
/// has billions of addresses: counted whole, each would have the per-address cap of its own.
///
/// An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, RFC 4291 §2.5.5.2), which a dual-stack socket
/// bound to `::` reports for an IPv4 client, counts as that IPv4 address: the same client is one
/// source whichever socket it reached.
///
/// A value of at most 24 bytes, hashed without any text: made once per accepted connection.
enum ConnectionSource: Hashable, Sendable, CustomStringConvertible {
    /// An IPv4 address, in host byte order.
    case ipv4(UInt32)
    /// An IPv6 prefix: the address's first `length` bits (in host byte order, high then low 64
    /// bits), the rest zero.
    case ipv6(high: UInt64, low: UInt64, length: UInt8)
    /// A connection without an IP peer (a Unix domain socket, or a peer address the socket no
    /// longer knows): all such connections are one source.
    case unknown

    /// The source of a connection from `address`, its IPv6 prefix `ipv6PrefixLength` bits long
    /// (clamped to 0…128).
    init(_ address: SocketAddress?, ipv6PrefixLength: Int) {
        // The address bytes, in network order, at the offsets both Linux and the BSDs give
        // `sockaddr_in` (4) and `sockaddr_in6` (8).
        func bytes(at offset: Int, count: Int) -> [UInt8]? {
            address?.withSockAddr { name, length in
                length >= offset + count ? Array(UnsafeRawBufferPointer(start: UnsafeRawPointer(name) + offset, count: count)) : nil
            }
        }
        switch address {
        case .v4?:
            guard let octets = bytes(at: 4, count: 4) else {
                self = .unknown
                return
            }
            self = .ipv4(octets.reduce(0) { $0 << 8 | UInt32($1) })
        case .v6?:
            guard let octets = bytes(at: 8, count: 16) else {
                self = .unknown
                return
            }
            let high = octets.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let low = octets.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            self = Self.ipv6(high: high, low: low, prefixLength: ipv6PrefixLength)
        case .unixDomainSocket?, nil:
            self = .unknown
        }
    }

    /// The source of IPv6 address `high`:`low` (its upper and lower 64 bits): the IPv4 address of
    /// an IPv4-mapped one, else its first `prefixLength` bits (clamped to 0…128).
    static func ipv6(high: UInt64, low: UInt64, prefixLength: Int) -> ConnectionSource {
        if high == 0, low >> 32 == 0xFFFF {
            return .ipv4(UInt32(truncatingIfNeeded: low))
        }
        let length = min(max(prefixLength, 0), 128)
        // Smart shifts: a shift by 64 or more gives 0, never a trap.
        let highMask = UInt64.max << (64 - min(length, 64))
        let lowMask = UInt64.max << (128 - max(length, 64))
        return .ipv6(high: high & highMask, low: low & lowMask, length: UInt8(truncatingIfNeeded: length))
    }

    /// `192.0.2.1`, `2001:db8:1::/64`, or `unknown`.
    var description: String {
        switch self {
        case .ipv4(let address):
            return "\(address >> 24).\(address >> 16 & 0xFF).\(address >> 8 & 0xFF).\(address & 0xFF)"
        case .ipv6(let high, let low, let length):
            var packed = ByteBuffer()
            packed.writeInteger(high)
            packed.writeInteger(low)
            let address = (try? SocketAddress(packedIPAddress: packed, port: 0))?.ipAddress ?? "?"
            return "\(address)/\(length)"
        case .unknown:
            return "unknown"
        }
    }
}

import NIOCore
@testable import PreflightEdge
import Testing

/// ``ConnectionSource``: which connections count as one source for the HTTP listener's caps.
@Suite struct ConnectionSourceTests {
    static func source(_ address: String, prefix: Int = 64) throws -> ConnectionSource {
        ConnectionSource(try SocketAddress(ipAddress: address, port: 443), ipv6PrefixLength: prefix)
    }

    @Test func anIPv4AddressIsASourceOfItsOwn() throws {
        #expect(try Self.source("192.0.2.1") == .ipv4(0xC000_0201))
        #expect(try Self.source("192.0.2.1") != Self.source("192.0.2.2"))
        // The prefix length is IPv6's only.
        #expect(try Self.source("192.0.2.1", prefix: 32) == Self.source("192.0.2.1", prefix: 128))
        #expect(try Self.source("198.51.100.255").description == "198.51.100.255")
        // The port is no part of it.
        #expect(ConnectionSource(try SocketAddress(ipAddress: "192.0.2.1", port: 1), ipv6PrefixLength: 64) == (try Self.source("192.0.2.1")))
    }

    @Test func anIPv6AddressCountsByItsSlash64() throws {
        let first = try Self.source("2001:db8:1:2::1")
        #expect(first == .ipv6(high: 0x2001_0db8_0001_0002, low: 0, length: 64))
        #expect(first.description == "2001:db8:1:2::/64")
        // Every address of the /64, the highest included, is the same source.
        for address in ["2001:db8:1:2::2", "2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2:8a2e:370:7334:1"] {
            #expect(try Self.source(address) == first, "\(address)")
        }
        // The next /64, or one bit off in the prefix, is another.
        #expect(try Self.source("2001:db8:1:3::1") != first)
        #expect(try Self.source("2001:db8:1:2::1") != Self.source("2001:db9:1:2::1"))
        #expect(try Self.source("::1") == .ipv6(high: 0, low: 0, length: 64))
    }

    @Test(arguments: [
        // (prefix, an address, one in the same prefix, one just outside it)
        (48, "2001:db8:aa::1", "2001:db8:aa:ffff:1::9", "2001:db8:ab::1"),
        (56, "2001:db8:aa:1200::1", "2001:db8:aa:12ff::1", "2001:db8:aa:1300::1"),
        (60, "2001:db8:aa:1230::1", "2001:db8:aa:123f::1", "2001:db8:aa:1220::1"),
        (32, "2001:db8::1", "2001:db8:ffff:ffff::1", "2001:db9::1"),
        (65, "2001:db8::1", "2001:db8::7fff:0:0:1", "2001:db8::8000:0:0:1"),
        (96, "2001:db8::1:0:1", "2001:db8::1:ffff:ffff", "2001:db8::2:0:1"),
        (127, "2001:db8::2", "2001:db8::3", "2001:db8::4"),
        (128, "2001:db8::1", "2001:db8::1", "2001:db8::2"),
    ] as [(Int, String, String, String)])
    func otherPrefixLengths(prefix: Int, address: String, inside: String, outside: String) throws {
        let source = try Self.source(address, prefix: prefix)
        #expect(try Self.source(inside, prefix: prefix) == source)
        #expect(try Self.source(outside, prefix: prefix) != source)
        #expect(source.description.hasSuffix("/\(prefix)"))
    }

    @Test func theBitsPastThePrefixAreCleared() throws {
        #expect(try Self.source("2001:db8:aa:12ff:1:2:3:4", prefix: 56) == .ipv6(high: 0x2001_0db8_00aa_1200, low: 0, length: 56))
        #expect(try Self.source("2001:db8::ffff:ffff:ffff:ffff", prefix: 80) == .ipv6(high: 0x2001_0db8_0000_0000, low: 0xFFFF_0000_0000_0000, length: 80))
        #expect(try Self.source("2001:db8::1:2:3:4", prefix: 128) == .ipv6(high: 0x2001_0db8_0000_0000, low: 0x0001_0002_0003_0004, length: 128))
        // Out of range lengths are clamped instead of trapping (the edge allows only 32…128).
        #expect(ConnectionSource.ipv6(high: .max, low: .max, prefixLength: -5) == .ipv6(high: 0, low: 0, length: 0))
        #expect(ConnectionSource.ipv6(high: .max, low: .max, prefixLength: 500) == .ipv6(high: .max, low: .max, length: 128))
        #expect(ConnectionSource.ipv6(high: .max, low: .max, prefixLength: 1) == .ipv6(high: 1 << 63, low: 0, length: 1))
    }

    @Test func anIPv4MappedAddressIsItsIPv4Address() throws {
        for prefix in [32, 64, 128] {
            #expect(try Self.source("::ffff:192.0.2.1", prefix: prefix) == Self.source("192.0.2.1"))
        }
        #expect(try Self.source("::ffff:192.0.2.1") != Self.source("::ffff:192.0.2.2"))
        // Not mapped: an IPv4-compatible address (deprecated) and the NAT64 prefix are IPv6 sources.
        #expect(try Self.source("::192.0.2.1") == .ipv6(high: 0, low: 0, length: 64))
        #expect(try Self.source("64:ff9b::192.0.2.1") == .ipv6(high: 0x0064_ff9b_0000_0000, low: 0, length: 64))
        #expect(try Self.source("::fffe:192.0.2.1", prefix: 128) != Self.source("192.0.2.1"))
    }

    @Test func aConnectionWithoutAnIPPeerIsUnknown() throws {
        #expect(ConnectionSource(nil, ipv6PrefixLength: 64) == .unknown)
        #expect(ConnectionSource(try SocketAddress(unixDomainSocketPath: "/tmp/edge.sock"), ipv6PrefixLength: 64) == .unknown)
        #expect(ConnectionSource.unknown.description == "unknown")
    }
}

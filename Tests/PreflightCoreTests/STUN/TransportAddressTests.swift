import PreflightCore
import Testing

@Suite struct TransportAddressTests {
    @Test func ipv4() throws {
        let address = try #require(TransportAddress(ipv4: "198.18.0.1", port: 3478))
        #expect(address.family == .ipv4)
        #expect(address.bytes == [198, 18, 0, 1])
        #expect(address.description == "198.18.0.1:3478")
        #expect(address == TransportAddress(ipv4: 198, 18, 0, 1, port: 3478))
        #expect(TransportAddress("198.18.0.1:3478") == address)
        #expect(TransportAddress(ipv4: "0.0.0.0", port: 0)?.description == "0.0.0.0:0")
        #expect(TransportAddress(ipv4: "255.255.255.255", port: 65535)?.bytes == [255, 255, 255, 255])
    }

    @Test(arguments: ["", "1.2.3", "1.2.3.4.5", "256.0.0.1", "1..2.3", "1.2.3.", ".1.2.3", "a.b.c.d", "1.2.3.4 ", "0001.2.3.4", "-1.2.3.4"])
    func invalidIPv4(_ text: String) {
        #expect(TransportAddress(ipv4: text, port: 1) == nil)
    }

    /// Canonical text per RFC 5952 §4 (examples from its sections 4.2.1–4.2.3 and 4.3).
    @Test(arguments: [
        ("2001:db8::1", "2001:db8::1"),
        ("2001:0db8:0:0:0:0:2:1", "2001:db8::2:1"),
        ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
        ("2001:0:0:1:0:0:0:1", "2001:0:0:1::1"),
        ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
        ("2001:DB8::AAAA", "2001:db8::aaaa"),
        ("2001:db8:1234:5678:11:2233:4455:6677", "2001:db8:1234:5678:11:2233:4455:6677"),
        ("::", "::"),
        ("::1", "::1"),
        ("1::", "1::"),
        ("fe80::", "fe80::"),
        ("::ffff:192.0.2.1", "::ffff:c000:201"),
    ])
    func ipv6(_ text: String, _ canonical: String) throws {
        let address = try #require(TransportAddress(ipv6: text, port: 3478))
        #expect(address.family == .ipv6)
        #expect(address.bytes.count == 16)
        #expect(address.host == canonical)
        #expect(address.description == "[\(canonical)]:3478")
        #expect(TransportAddress(address.description) == address)
        #expect(TransportAddress(host: canonical, port: 3478) == address)
    }

    @Test func ipv6Bytes() throws {
        let address = try #require(TransportAddress(ipv6: "2001:db8::1", port: 1))
        #expect(address.bytes == [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
        #expect(TransportAddress(ipv6: "::ffff:192.0.2.1", port: 1)?.bytes.suffix(6) == [0xFF, 0xFF, 192, 0, 2, 1])
    }

    @Test(arguments: [
        "", ":", ":::", "1::2::3", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "12345::", "g::", "1:2:3:4:5:6:7::8:9",
        "::1:", ":1::", "1.2.3.4::", "::1.2.3", "+1::", "1:2:3:4:5:6:7:8::",
    ])
    func invalidIPv6(_ text: String) {
        #expect(TransportAddress(ipv6: text, port: 1) == nil)
    }

    @Test func bytesInitializer() {
        #expect(TransportAddress(bytes: [1, 2, 3], port: 1) == nil)
        #expect(TransportAddress(bytes: [10, 0, 0, 1], port: 80)?.description == "10.0.0.1:80")
        #expect(TransportAddress(bytes: [UInt8](repeating: 0, count: 15) + [1], port: 80)?.description == "[::1]:80")
    }

    @Test(arguments: ["1.2.3.4", "1.2.3.4:", "1.2.3.4:65536", "[::1]", "[::1]:", "::1:80", "[1.2.3.4]:80"])
    func invalidDescriptions(_ text: String) {
        #expect(TransportAddress(text) == nil)
    }
}

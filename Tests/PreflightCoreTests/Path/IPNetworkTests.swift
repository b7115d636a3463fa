import PreflightCore
import Testing

@Suite struct IPNetworkTests {
    @Test(arguments: [
        ("10.1.2.3", "10.0.0.0/8", true), ("11.0.0.1", "10.0.0.0/8", false), ("172.31.255.255", "172.16.0.0/12", true),
        ("172.32.0.1", "172.16.0.0/12", false), ("198.18.40.7", "198.18.40.0/24", true), ("198.18.41.7", "198.18.40.0/24", false),
        ("fd00::1", "fc00::/7", true), ("fe80::1", "fc00::/7", false), ("2001:db8::1", "2001:db8::/32", true),
        ("::ffff:10.0.0.1", "::ffff:0:0/96", true), ("10.0.0.1", "::/0", false), ("0.0.0.0", "0.0.0.0/0", true),
    ])
    func containment(address: String, block: String, expected: Bool) throws {
        #expect(try IPNetwork(block).contains(address) == expected)
    }

    @Test(arguments: ["", "10.0.0.0/33", "10.0.0/8", "256.0.0.0", "10.0.0.0/-1", "10.0.0.0/", "1::2::3", "1:2:3:4:5:6:7:8:9", "::g",
                      "10.0.0.01234", "fe80::1%eth0", "10.0.0.0/8/8", "12345::", ":::"])
    func refused(text: String) {
        #expect(throws: PreflightError.self) { try IPNetwork(text) }
        do { _ = try IPNetwork(text) } catch { #expect(error.code == .invalidPathDiagnosisOption) }
    }

    @Test func hostBitsAreClearedAndTheTextIsCanonical() throws {
        #expect(try IPNetwork("10.9.8.7/8").description == "10.0.0.0/8")
        #expect(try IPNetwork("2001:db8:0:0:0:0:0:1").prefixLength == 128)
        #expect(IPNetwork.addressBytes("::") == [UInt8](repeating: 0, count: 16))
        #expect(IPNetwork.privateBlocks.contains { $0.contains("192.168.1.1") })
        #expect(!IPNetwork.privateBlocks.contains { $0.contains("100.64.0.1") })
    }
}

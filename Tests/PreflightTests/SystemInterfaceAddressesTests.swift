import PreflightCore
@testable import PreflightNIO
import Testing

/// The addresses the Apple network monitor reads with `getifaddrs` (through NIO), read here on
/// Linux: the same code runs on both.
@Suite struct SystemInterfaceAddressesTests {
    @Test func theLoopbackAddressIsListedAsIPv4() {
        let entries = InterfaceAddressEntry.system()
        #expect(entries.contains { $0.family == .ipv4 && $0.address == "127.0.0.1" })
        #expect(entries.allSatisfy { ($0.family == .ipv6) == $0.address.contains(":") })
        let loopback = entries.first { $0.address == "127.0.0.1" }?.interfaceName ?? ""
        #expect(InterfaceAddressEntry.usableAddresses(of: loopback, in: entries).first == "127.0.0.1")
    }
}

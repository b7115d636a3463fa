import Foundation
import PreflightCore
import Testing

/// The Linux network monitor's pure parts against what a kernel really sent: a recording of a
/// NETLINK_ROUTE socket in a network namespace (`scripts/record-netlink`, fixture
/// `netlink-namespace.json`) while veth, bridge and tun interfaces came and went.
@Suite struct NetlinkMonitorTests {
    struct Record: Decodable {
        var step: String
        var hex: String

        var bytes: [UInt8] {
            var bytes: [UInt8] = []
            var index = hex.startIndex
            while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
                bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
                index = next
            }
            return bytes
        }
    }

    static func recording() throws -> [Record] {
        let url = try #require(Bundle.module.url(forResource: "netlink-namespace", withExtension: "json", subdirectory: "Fixtures"))
        return try JSONDecoder().decode([Record].self, from: Data(contentsOf: url))
    }


    @Test func everyRecordedDatagramParses() throws {
        var links: [String: NetlinkRouteMessage.Link] = [:]
        var addresses: [String] = []
        var dones = 0
        for record in try Self.recording() {
            for message in try NetlinkRouteMessage.parse(record.bytes[...]) {
                switch message {
                case .link(let link): links[link.name ?? "?"] = link
                case .address(let address): addresses += address.address.map { [$0] } ?? []
                case .done: dones += 1
                default: break
                }
            }
        }
        #expect(dones == 2, "each dump ends with NLMSG_DONE")
        let loopback = try #require(links["lo"])
        #expect(loopback.isLoopback && loopback.hardwareType == 772 && loopback.index == 1)
        #expect(links["tun0"]?.kind == "tun" && links["tun0"]?.hardwareType == 65534)
        #expect(links["br0"]?.kind == "bridge" && links["br0"]?.removed == true)
        #expect(links["vc0"]?.kind == "veth" && links["vc0"]?.hardwareType == 1)
        #expect(addresses.contains("198.18.5.1") && addresses.contains("fd00:5::1") && addresses.contains("127.0.0.1"))
    }

    /// The recording replayed through a session: the snapshot after each step.
    @Test func aReplayedRecordingGivesEachChange() throws {
        let classifier = NetworkTypeClassifier(overrides: try NetworkTypeOverrides(parsing: "vc*=cellular"))
        var session = NetlinkMonitorSession {
            classifier.classify(NetworkInterfaceFacts(name: $0.name ?? "", hardwareType: $0.hardwareType, isLoopback: $0.isLoopback, linkKind: $0.kind))
        }
        session.start()
        let requests = session.takeOutputs()
        #expect(requests == [.send(NetlinkRouteMessage.dumpRequest(.links, sequence: 1))])
        var snapshots: [(step: String, snapshot: NetworkSnapshot)] = []
        for record in try Self.recording() {
            session.receive(record.bytes[...])
            for output in session.takeOutputs() {
                switch output {
                case .snapshot(let snapshot): snapshots.append((record.step, snapshot))
                case .send(let bytes): #expect(bytes == NetlinkRouteMessage.dumpRequest(.addresses, sequence: 2))
                }
            }
        }
        let steps = snapshots.map { ($0.step, $0.snapshot.networks.map { "\($0.interfaceName) \($0.type) \($0.addresses.joined(separator: " "))" }) }
        // The first state: loopback only (the recorder's dump answered with loopback alone).
        #expect(steps.first?.0 == "dump addresses")
        #expect(steps.first?.1 == ["lo LOOPBACK 127.0.0.1 ::1"])
        // veth's carrier comes when both ends are up: the network appears then, not at `ip addr add`.
        #expect(steps.contains { $0.0 == "ip link set vc0 up" && $0.1 == ["lo LOOPBACK 127.0.0.1 ::1", "vc0 CELLULAR 198.18.5.1"] })
        #expect(steps.contains { $0.1 == ["lo LOOPBACK 127.0.0.1 ::1", "vc0 CELLULAR 198.18.5.1 fd00:5::1"] })
        // This kernel calls an empty bridge up with a carrier (LOWER_UP, state UNKNOWN): a network
        // once it has an address. A tun no process holds has no carrier: never a network.
        #expect(steps.contains {
            $0.0 == "ip addr add 198.18.7.1/24 dev br0" && $0.1.contains("br0 ETHERNET 198.18.7.1")
        })
        #expect(!steps.contains { $0.1.contains { $0.hasPrefix("tun0") } })
        #expect(steps.contains { $0.0 == "ip link set vc0 down" && !$0.1.contains { $0.hasPrefix("vc0") } })
        #expect(steps.last?.0 == "ip addr del 198.18.7.1/24 dev br0")
        #expect(steps.last?.1 == ["lo LOOPBACK 127.0.0.1 ::1"])
        #expect(session.isReady && session.resyncs == 0)
        #expect(snapshots.last?.snapshot.preferred?.interfaceName == "lo")
    }

    /// Lost notifications (ENOBUFS) or an unparsable datagram: the table is dumped again, after
    /// the dump in flight, and no snapshot goes out from a partial table.
    @Test func lostMessagesDumpAgain() throws {
        let recording = try Self.recording()
        var session = NetlinkMonitorSession { _ in .ethernet }
        session.start()
        _ = session.takeOutputs()
        session.receive(recording[0].bytes[...])  // part of the link dump
        session.lostMessages()
        session.receive(recording[1].bytes[...])  // NLMSG_DONE of the links: the resync starts over
        #expect(session.takeOutputs() == [.send(NetlinkRouteMessage.dumpRequest(.links, sequence: 2))])
        #expect(!session.isReady)
        session.receive([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17][...])
        #expect(session.resyncs == 2)
        // EBUSY on a dump asks for it again.
        var busy = session
        var error: [UInt8] = []
        withUnsafeBytes(of: UInt32(36)) { error += $0 }
        withUnsafeBytes(of: UInt16(2)) { error += $0 }
        error += [0, 0]
        withUnsafeBytes(of: UInt32(2)) { error += $0 }
        error += [0, 0, 0, 0]
        withUnsafeBytes(of: Int32(-16)) { error += $0 }
        error += [UInt8](repeating: 0, count: 16)
        busy.receive(error[...])
        #expect(busy.takeOutputs() == [.send(NetlinkRouteMessage.dumpRequest(.links, sequence: 3))])
    }

    @Test func hostileDatagramsThrowOrAreSkipped() {
        // A length under the header.
        #expect(throws: PreflightError.self) { try NetlinkRouteMessage.parse([8, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0][...]) }
        // A length beyond the datagram.
        #expect(throws: PreflightError.self) { try NetlinkRouteMessage.parse([255, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0][...]) }
        // A link message with a short body.
        #expect(throws: PreflightError.self) { try NetlinkRouteMessage.parse([20, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4][...]) }
        // An attribute longer than its message ends the attributes, not the parse.
        var link: [UInt8] = [40, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        link += [0, 0, 1, 0, 7, 0, 0, 0, 0x41, 0, 0, 0, 0, 0, 0, 0]
        link += [200, 0, 3, 0, 0x65, 0x76, 0x69, 0x6C]
        let messages = try? NetlinkRouteMessage.parse(link[...])
        guard case .link(let parsed)? = messages?.first else {
            Issue.record("no link parsed from \(link)")
            return
        }
        #expect(parsed.index == 7 && parsed.name == nil && parsed.hardwareType == 1)
    }
}

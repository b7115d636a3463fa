import Foundation
import PreflightCore
import Testing

@testable import PreflightCLI

/// The calls file `preflight load --calls N --generator` hands the load generator
/// (Benchmarks/Load/README.md, calls mode): one line per leg, the generator's five fields.
@Suite struct CallGeneratorRunTests {
    static let remote = ICEParameters(ufrag: "edge", pwd: "edgepassword0123456789ab")

    @Test func anSRTPLegsLineHasItsKeysAndACheckNumberedByItsLine() throws {
        let send = SRTPKeyingMaterial.random()
        let receive = SRTPKeyingMaterial.random()
        let leg = CallGeneratorRun.Leg(edge: ("127.0.0.1", 40_000), sendKey: send, receiveKey: receive, localUfrag: "legA", remote: Self.remote)
        let fields = try leg.line(index: 0x0102_0304).split(separator: " ").map(String.init)
        #expect(fields.count == 5)
        #expect(fields[0] == "127.0.0.1" && fields[1] == "40000")
        #expect(fields[2] == hex(send.masterKey + send.masterSalt) && fields[2].count == 56)
        #expect(fields[3] == hex(receive.masterKey + receive.masterSalt))
        let check = try STUNMessage(decoding: try #require(bytes(hex: fields[4])))
        #expect(check.type == .bindingRequest)
        // The generator finds the leg of an answer by the transaction id's first four bytes.
        #expect(Array(check.transactionID.bytes.prefix(4)) == [1, 2, 3, 4])
        #expect(check.attributes.contains(.username("edge:legA")))
        #expect(check.attributes.contains(.useCandidate))
    }

    @Test func aPlainLegHasNoKeys() throws {
        let leg = CallGeneratorRun.Leg(edge: ("127.0.0.1", 40_000), sendKey: nil, receiveKey: nil, localUfrag: "legB", remote: Self.remote)
        let fields = try leg.line(index: 1).split(separator: " ").map(String.init)
        #expect(fields[2] == "-" && fields[3] == "-")
    }

    func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    func bytes(hex: String) -> [UInt8]? {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) ?? hex.endIndex
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            out.append(byte)
            index = next
        }
        return out
    }
}

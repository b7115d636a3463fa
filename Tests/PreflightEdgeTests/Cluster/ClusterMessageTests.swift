import Foundation
import NIOCore
import PreflightCore
import Testing

@testable import PreflightEdge

/// What one edge reads from another (``ClusterMessage``): the fuzz target's seeds parse, and a
/// message another edge (or whoever can write to the database) could forge is refused with 70002.
@Suite struct ClusterMessageTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../Fuzz/Corpus/FuzzClusterMessage")

    static func seed(_ index: Int) throws -> String {
        try String(contentsOf: corpus.appendingPathComponent(String(format: "seed-%02d", index)), encoding: .utf8)
    }

    @Test func everySeedOfTheFuzzTargetIsAValidMessageOfItsKind() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).filter { $0.hasPrefix("seed-") }.sorted()
        #expect(files.count == ClusterMessage.Kind.allCases.count)
        var kinds: Set<ClusterMessage.Kind> = []
        for file in files {
            let text = try String(contentsOf: Self.corpus.appendingPathComponent(file), encoding: .utf8)
            let message = try ClusterMessage(jsonText: text)
            #expect(try ClusterMessage(jsonText: message.jsonText()) == message)
            kinds.insert(message.kind)
        }
        #expect(kinds == Set(ClusterMessage.Kind.allCases))
    }

    /// An invite (seed 2) changed by `edit`, as JSON.
    static func invite(_ edit: (inout [String: Any]) -> Void) throws -> String {
        var object = try #require(JSONSerialization.jsonObject(with: Data(try seed(2).utf8)) as? [String: Any])
        edit(&object)
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    @Test(arguments: [
        "no trunk", "a host name as trunk", "a port out of range", "one SSRC for both", "a key that is not one", "an unknown codec",
        "a control byte in a name", "an edge name of 300 bytes", "an incoming of another call", "a code past 99999",
    ])
    func aForgedInviteIsRefused(_ case: String) throws {
        let text = try Self.invite { object in
            var trunk = object["trunk"] as? [String: Any] ?? [:]
            var incoming = object["incoming"] as? [String: Any] ?? [:]
            switch `case` {
            case "no trunk": object.removeValue(forKey: "trunk")
            case "a host name as trunk": trunk["address"] = "victim.example:3478"
            case "a port out of range": trunk["address"] = "198.18.0.1:70000"
            case "one SSRC for both": trunk["calleeSSRC"] = trunk["callerSSRC"]
            case "a key that is not one": trunk["callerKey"] = ["profile": "AEAD_AES_128_GCM", "key": "AAAA"]
            case "an unknown codec": incoming["codec"] = "G729"
            case "a control byte in a name": object["identity"] = "bob\u{7}"
            case "an edge name of 300 bytes": object["from"] = String(repeating: "e", count: 300)
            case "an incoming of another call": incoming["callSid"] = "CA2"
            default: object["code"] = 100_000
            }
            if object["trunk"] != nil { object["trunk"] = trunk }
            object["incoming"] = incoming
        }
        #expect(throws: PreflightError.self) { try ClusterMessage(jsonText: text) }
        do {
            _ = try ClusterMessage(jsonText: text)
        } catch {
            #expect(error.code == .malformed)
        }
    }

    @Test func textThatIsNotAMessageOrTooLongIsRefused() {
        for text in ["", "null", "[]", #"{"kind":"teleport","from":"x","expiresAt":1}"#, String(repeating: " ", count: 70_000)] {
            #expect(throws: PreflightError.self) { try ClusterMessage(jsonText: text) }
        }
    }

    @Test func trunkAddressesAreIPAddressesAndPortsOnly() {
        #expect(ClusterTrunkAddress.parse("198.18.0.1:3478")?.port == 3478)
        #expect(ClusterTrunkAddress.parse("[2001:db8::1]:3478")?.port == 3478)
        for text in ["localhost:3478", "2001:db8::1:3478", "198.18.0.1", "198.18.0.1:0", "198.18.0.1:x", ":3478", String(repeating: "1", count: 80)] {
            #expect(ClusterTrunkAddress.parse(text) == nil, "\(text)")
        }
    }
}

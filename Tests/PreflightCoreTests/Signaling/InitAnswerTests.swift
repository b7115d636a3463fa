import Foundation
import PreflightCore
import Testing

/// The init endpoint's answer as the client reads it, and the connectivity check's result as
/// 100ms names it.
@Suite struct InitAnswerTests {
    @Test func anAnswerDecodes() throws {
        let body = #"{"edge":"fra1","websocketUrl":"wss://edge.example.com/signaling","iceServers":[{"urls":["stun:198.18.2.2:3478"]}]}"#
        let answer = try InitAnswer(status: 200, body: Array(body.utf8))
        #expect(answer == InitAnswer(edge: "fra1", websocketUrl: "wss://edge.example.com/signaling", iceServers: [ICEServer(urls: ["stun:198.18.2.2:3478"])]))
    }

    @Test(arguments: [
        (401, #"{"code":20104,"message":"expired"}"#, 20104),
        (401, #"{"code":99999,"message":"not ours"}"#, 70601),
        (503, "<html>", 70601),
        (200, #"{"edge":"x"}"#, 70601),
        (200, #"{"edge":"x","websocketUrl":"\#(String(repeating: "a", count: 3000))","iceServers":[]}"#, 70601),
    ] as [(UInt, String, Int)])
    func refusalsCarryTheirCode(status: UInt, body: String, code: Int) {
        let error = #expect(throws: PreflightError.self) { _ = try InitAnswer(status: status, body: Array(body.utf8)) }
        #expect(error?.code.rawValue == code)
    }

    @Test func anAnswerPastItsLimitIs70601() {
        let error = #expect(throws: PreflightError.self) { _ = try InitAnswer(status: 200, body: [UInt8](repeating: 0x20, count: 70_000)) }
        #expect(error?.code == .initFailed)
    }

    @Test func theResultKeeps100msSpellingAndStateNames() throws {
        var report = MediaServerReport()
        report.isSubscribeICEConnected = true
        let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        #expect(json.contains(#""isSubcribeICEConnected":true"#) && !json.contains("isSubscribeICEConnected"))
        let names = try ConnectivityCheckState.allCases.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        #expect(names == [#""starting""#, #""initFetched""#, #""signallingConnected""#, #""iceEstablished""#, #""mediaCaptured""#, #""mediaPublished""#, #""completed""#])
        #expect(try JSONDecoder().decode(ConnectivityCheckState.self, from: Data(#""mediaPublished""#.utf8)) == .mediaPublished)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ConnectivityCheckState.self, from: Data(#""done""#.utf8)) }
    }
}

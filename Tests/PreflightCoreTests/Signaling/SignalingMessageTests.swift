import Foundation
import PreflightCore
import Testing

@Suite struct SignalingMessageTests {
    static let ice = ICEParameters(
        ufrag: "aB3d", pwd: "0123456789abcdefghij+/",
        candidates: [
            ICECandidate(foundation: "1", priority: 2_130_706_431, address: "198.18.0.1", port: 40000, type: .host),
            ICECandidate(
                foundation: "2", priority: 1_694_498_815, address: "198.19.0.1", port: 50000, type: .serverReflexive,
                relatedAddress: "198.18.0.1", relatedPort: 40000),
        ])

    static let messages: [SignalingMessage] = [
        .hello(token: "eyJ.x.y", client: "preflight-swift/0.1.0"),
        .hello(token: "eyJ.x.y", client: nil),
        .welcome(.init(edge: "lab", sessionId: "S1", iceServers: [ICEServer(urls: ["stun:198.18.0.3:3478"])])),
        .welcome(.init(edge: "lab", sessionId: "S1", resumeToken: "0123456789abcdef0123456789abcdef")),
        .resume(.init(sessionId: "S1", resumeToken: "0123456789abcdef0123456789abcdef")),
        .resumed(.init(sessionId: "S1", callSid: "CA123", resumeToken: "fedcba9876543210fedcba9876543210")),
        .resumed(.init(sessionId: "S1")),
        .invite(.init(ice: ice, codecs: ["PCMU", "opus"], params: ["app": "echo"])),
        .ringing(callSid: "CA123"),
        .answer(.init(callSid: "CA123", ice: ICEParameters(ufrag: "edge", pwd: "abcdefghijklmnopqrstuv", lite: true), codec: "PCMU", payloadType: 0)),
        .hangup(.init(callSid: "CA123", reason: "completed")),
        .error(.init(code: 20104, message: "access token expired")),
        .register,
        .registered(identity: "bob"),
        .incoming(.init(callSid: "CA123", from: "client:alice", to: "client:bob", params: ["Topic": "lunch"])),
        .cancel(.init(callSid: "CA123", reason: "no answer", code: 31480)),
        .cancel(.init(callSid: "CA123")),
        .accept(.init(callSid: "CA123", ice: ice, codecs: ["PCMU"])),
        .reject(callSid: "CA123"),
        .message(.init(callSid: "CA123", id: "KX1", message: CallMessage(content: #"{"a":1}"#))),
        .messageStatus(.init(callSid: "CA123", id: "KX1")),
        .messageStatus(.init(callSid: "CA123", id: "KX1", code: 31209, reason: "too large")),
        .insights(.init(callSid: "CA123", events: [
            InsightsEvent(.connection, "ringing", timestamp: 1_700_000_000_000),
            InsightsEvent(.iceCandidate, "ice-candidate", timestamp: 1_700_000_000_001, payload: ["candidateType": "host"]),
        ])),
        .probe(.init(ice: ice, expectedUplinkBitrate: 5_000_000, expectedDownlinkBitrate: nil)),
        .probeTrain(.init(rate: 1_500_000, size: 1200, duration: 400)),
        .probeArrivals(.init(records: [0, 1000, 1200, 1, 2000, 1200], dropped: 3)),
    ]

    @Test func everyMessageNamesItsCall() {
        for message in Self.messages {
            switch message {
            case .hello, .welcome, .resume, .invite, .register, .registered, .probe, .probeTrain, .probeArrivals:
                #expect(message.callSid == nil)
            case .resumed(let body): #expect(message.callSid == body.callSid)
            case .error(let body): #expect(message.callSid == body.callSid)
            default: #expect(message.callSid == "CA123", "\(message.type)")
            }
        }
    }

    @Test(arguments: messages)
    func roundTrips(message: SignalingMessage) throws {
        let text = message.jsonText()
        #expect(try SignalingMessage(jsonText: text) == message)
        #expect(text.contains("\"type\":\"\(message.type)\""))
    }

    /// Arrival records are triples; anything else, or more than a batch may hold, is refused as a
    /// whole rather than read in part.
    @Test func probeArrivalsAreWholeTriplesWithinTheLimit() {
        let batch = SignalingMessage.ProbeArrivals(records: [7, 1_000_000, 1200, 8, 1_000_800, 70_000])
        let arrivals = batch.arrivals
        #expect(arrivals?.count == 2)
        #expect(arrivals?.first?.sequence == 7 && arrivals?.first?.arrivalMicroseconds == 1_000_000 && arrivals?.first?.bytes == 1200)
        // A size no UDP datagram has is capped at the largest one.
        #expect(arrivals?.last?.bytes == 65_535)
        #expect(SignalingMessage.ProbeArrivals(records: [1, 2]).arrivals == nil)
        let tooMany = [UInt64](repeating: 1, count: (SignalingMessage.ProbeArrivals.maximumRecords + 1) * 3)
        #expect(SignalingMessage.ProbeArrivals(records: tooMany).arrivals == nil)
        #expect(SignalingMessage.ProbeArrivals(records: []).arrivals?.isEmpty == true)
    }

    @Test func wireShapeOfProbe() throws {
        let text = #"{"type":"probe","expectedDownlinkBitrate":1000000,"ice":{"ufrag":"abcd","pwd":"abcdefghijklmnopqrstuv","lite":false,"candidates":[]}}"#
        guard case .probe(let probe) = try SignalingMessage(jsonText: text) else {
            Issue.record("not a probe")
            return
        }
        #expect(probe.expectedUplinkBitrate == nil)
        #expect(probe.expectedDownlinkBitrate == 1_000_000)
        #expect(throws: PreflightError.self) { try SignalingMessage(jsonText: #"{"type":"probeTrain","rate":1,"size":200}"#) }
        #expect(throws: PreflightError.self) { try SignalingMessage(jsonText: #"{"type":"probeArrivals","records":[-1],"dropped":0}"#) }
    }

    @Test func wireShapeOfAnswer() throws {
        let text = #"{"type":"answer","callSid":"CA1","codec":"PCMU","payloadType":0,"ice":{"ufrag":"edge","pwd":"abcdefghijklmnopqrstuv","lite":true,"candidates":[{"foundation":"1","component":1,"transport":"udp","priority":2130706431,"address":"127.0.0.1","port":4000,"type":"host"}]}}"#
        guard case .answer(let answer) = try SignalingMessage(jsonText: text) else {
            Issue.record("not an answer")
            return
        }
        #expect(answer.ice.lite)
        #expect(answer.ice.candidates.first?.type == .host)
        #expect(answer.ice.candidates.first?.port == 4000)
    }

    @Test(arguments: [
        ("", "not valid JSON"),
        ("{}", "missing field \"type\""),
        (#"{"type":"dance"}"#, "unknown message type"),
        (#"{"type":"hello"}"#, "missing field \"token\""),
        (#"{"type":"resume","sessionId":"S1"}"#, "missing field \"resumeToken\""),
        (#"{"type":"ringing","callSid":5}"#, "wrong type"),
        (#"{"type":"accept","callSid":"CA1","codecs":["PCMU"]}"#, "missing field \"ice\""),
        (#"{"type":"insights","callSid":"CA1","events":[{"group":"connection","name":"x"}]}"#, "missing field \"timestamp\""),
        (#"{"type":"message","callSid":"CA1","id":"KX1","message":{"content":"x"}}"#, "missing field \"contentType\""),
        (#"{"type":"error","code":"x","message":"m"}"#, "wrong type"),
        ("[1,2,3]", "wrong type"),
    ])
    func malformedMessagesAreRefused(text: String, explanation: String) {
        #expect {
            _ = try SignalingMessage(jsonText: text)
        } throws: { error in
            guard let error = error as? PreflightError else { return false }
            return error.code == .malformed && error.message.contains(explanation)
        }
    }

    @Test func oversizedMessagesAreRefused() {
        let text = #"{"type":"hello","token":""# + String(repeating: "a", count: SignalingMessage.maximumTextLength) + #""}"#
        #expect(throws: PreflightError.self) { try SignalingMessage(jsonText: text) }
    }

    @Test func errorInfoBecomesPreflightError() {
        let error = SignalingMessage.ErrorInfo(code: 20101, message: "invalid token").preflightError
        #expect(error.code.rawValue == 20101)
        #expect(error.message == "invalid token")
    }
}

@Suite struct ICECandidateTests {
    @Test(arguments: [
        ("candidate:1 1 udp 2130706431 198.18.0.1 40000 typ host", ICECandidate(foundation: "1", priority: 2_130_706_431, address: "198.18.0.1", port: 40000, type: .host)),
        ("a=candidate:842163049 1 UDP 1677729535 198.19.0.9 3478 typ srflx raddr 198.18.0.1 rport 40000 generation 0",
         ICECandidate(foundation: "842163049", priority: 1_677_729_535, address: "198.19.0.9", port: 3478, type: .serverReflexive, relatedAddress: "198.18.0.1", relatedPort: 40000)),
        ("candidate:3 1 tcp 1518280447 2001:db8::1 9 typ host tcptype active",
         ICECandidate(foundation: "3", transport: "tcp", priority: 1_518_280_447, address: "2001:db8::1", port: 9, type: .host, tcpType: "active")),
    ])
    func parsesSDP(text: String, expected: ICECandidate) throws {
        let candidate = try ICECandidate(sdpAttribute: text)
        #expect(candidate == expected)
        #expect(try ICECandidate(sdpAttribute: candidate.sdpAttribute) == candidate)
    }

    @Test(arguments: [
        "candidate:1 1 udp 2130706431 198.18.0.1 40000 host",
        "candidate:1 0 udp 1 198.18.0.1 40000 typ host",
        "candidate:1 1 sctp 1 198.18.0.1 40000 typ host",
        "candidate:1 1 udp 99999999999 198.18.0.1 40000 typ host",
        "candidate:1 1 udp 1 198.18.0.1 70000 typ host",
        "candidate:1 1 udp 1 198.18.0.1 4000 typ srflx raddr 1.2.3.4 rport x",
        "",
    ])
    func refusesMalformedSDP(text: String) {
        #expect(throws: PreflightError.self) { try ICECandidate(sdpAttribute: text) }
    }

    @Test func priorityFormula() {
        // RFC 8445 §5.1.2.1 with type preference 126, local preference 65535, component 1.
        #expect(ICECandidate.priority(typePreference: 126, localPreference: 65535, component: 1) == 2_130_706_431)
        #expect(ICECandidate.priority(typePreference: 0, localPreference: 0, component: 1) == 255)
        #expect(ICECandidate.priority(typePreference: 100, localPreference: 65535, component: 1) == 100 << 24 | 65535 << 8 | 255)
        #expect(ICECandidate.recommendedTypePreference(for: .relay) == 0)
    }

    @Test(arguments: [
        ("abcd", "0123456789012345678901", true),
        ("abc", "0123456789012345678901", false),
        ("abcd", "012345678901234567890", false),
        ("ab d", "0123456789012345678901", false),
        ("ab+/", "0123456789012345678901", true),
    ])
    func iceParameterValidation(ufrag: String, pwd: String, valid: Bool) {
        let parameters = ICEParameters(ufrag: ufrag, pwd: pwd)
        if valid {
            #expect(throws: Never.self) { try parameters.validate() }
        } else {
            #expect(throws: PreflightError.self) { try parameters.validate() }
        }
    }
}

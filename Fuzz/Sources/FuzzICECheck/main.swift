import FuzzSupport
import PreflightCore

// A datagram from the peer to a connected ICE agent (the edge's consent requests, or anything a
// hostile host sends the client's media port): the agent's new answering of checks
// (RFC 8445 §7.3). Properties: never a crash; at most one datagram goes out for one in, only back
// to the sender; and it goes only for a Binding request with the agent's USERNAME that verifies
// with its password (the harness's fixed key, so the corpus reaches the answering path): a
// Binding success with the request's transaction ID and the sender as XOR-MAPPED-ADDRESS, signed
// with that same password.

let localPassword = "fuzz-password-0123456789"
let remote = TransportAddress(ipv4: 198, 18, 0, 9, port: 7000)

/// An agent that checked its one pair with the remote, answered as an ICE-lite peer would.
func connectedAgent() -> ICEAgent {
    var agent = ICEAgent(localUfrag: "fuzz", localPassword: localPassword, seed: 1)
    agent.gather(
        hosts: [.init(address: "10.0.0.1", socket: .ipv4, networkType: "Ethernet")],
        sockets: [.ipv4: TransportAddress(ipv4: 10, 0, 0, 1, port: 5000)], servers: [], now: 0)
    let parameters = ICEParameters(
        ufrag: "edge", pwd: "edge-password-0123456789",
        candidates: [ICECandidate(foundation: "1", component: 1, priority: 2_130_706_431, address: remote.host, port: remote.port, type: .host)],
        lite: true)
    try? agent.connect(remote: parameters, now: 0)
    _ = agent.takeOutputs()
    return agent
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzICECheck(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = Array(fuzzInput(data, count))
    var agent = connectedAgent()
    let answered = agent.checksAnswered
    _ = input.withUnsafeBytes { agent.receive($0, from: remote, on: .ipv4, now: 0.1) }
    let sent = agent.takeOutputs().compactMap { output -> ([UInt8], ICEAgent.Transport)? in
        if case .transmit(let bytes, let transport) = output { (bytes, transport) } else { nil }
    }
    precondition(sent.count <= 1, "\(sent.count) datagrams for one")
    guard let (bytes, transport) = sent.first else {
        precondition(agent.checksAnswered == answered, "counted an answer that was not sent")
        return 0
    }
    precondition(transport == .udp(.ipv4, to: remote), "an answer went elsewhere: \(transport)")
    guard let request = try? STUNMessage(decoding: input), let answer = try? STUNMessage(decoding: bytes) else {
        preconditionFailure("answered something that is not a STUN message")
    }
    let key = STUNIntegrityKey(Array(localPassword.utf8))
    precondition(request.type == .bindingRequest && request.username == "fuzz:edge", "answered a request not for this agent")
    precondition((try? request.verifyIntegrity(key: key)) != nil, "answered a request that does not verify")
    precondition(answer.type == .bindingSuccess && answer.transactionID == request.transactionID, "answered with another transaction")
    precondition(answer.xorMappedAddress == remote, "reflected another address")
    precondition((try? answer.verifyIntegrity(key: key)) != nil, "an answer not signed with the agent's password")
    return 0
}

@_cdecl("FuzzICECheck_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzICECheck)
}

import PreflightCore
import Testing

/// Drives an ``ICEAgent`` on a fake clock against a scripted ICE-lite peer: the agent's outputs are
/// collected, and the peer answers the checks it is told to answer.
struct ICEAgentHarness {
    static let local = TransportAddress(ipv4: 10, 0, 0, 1, port: 5000)
    static let remoteHost = TransportAddress(ipv4: 198, 18, 0, 9, port: 7000)

    var agent: ICEAgent
    var now = 0.0
    var transmitted: [(time: Double, bytes: [UInt8], transport: ICEAgent.Transport)] = []
    var events: [(time: Double, event: ICEAgent.Event)] = []
    let remoteUfrag = "edgeufrag"
    let remotePassword = "edge-password-0123456789"
    /// Whether the peer answers checks.
    var answering = true
    /// The agent's deadlines ``run(until:)`` polled at.
    var polls = 0
    /// The local address of each socket (what the peer's answers report as mapped).
    var socketAddresses: [ICEAgent.Socket: TransportAddress] = [.ipv4: local]

    init(configuration: ICEAgent.Configuration = ICEAgent.Configuration(), seed: UInt64 = 1) {
        agent = ICEAgent(configuration: configuration, localUfrag: "ufrag", localPassword: "password-0123456789ab", seed: seed)
    }

    var remoteParameters: ICEParameters {
        ICEParameters(
            ufrag: remoteUfrag, pwd: remotePassword,
            candidates: [ICECandidate(
                foundation: "1", component: agent.configuration.component, priority: 2_130_706_431, address: Self.remoteHost.host,
                port: Self.remoteHost.port, type: .host)],
            lite: true)
    }

    mutating func collect() {
        for output in agent.takeOutputs() {
            switch output {
            case .transmit(let bytes, let transport): transmitted.append((now, bytes, transport))
            case .event(let event): events.append((now, event))
            default: break
            }
        }
    }

    mutating func gather(hosts: [ICEAgent.HostInterface] = [.init(address: "10.0.0.1", socket: .ipv4, networkType: "Ethernet")], servers: [ICEServer] = []) {
        agent.gather(hosts: hosts, sockets: [.ipv4: Self.local], servers: servers, now: now)
        collect()
    }

    mutating func connect() throws(PreflightError) {
        let before = transmitted.count
        try agent.connect(remote: remoteParameters, now: now)
        collect()
        if answering { answerChecks(from: before) }
    }

    /// The Binding requests sent so far (decoded), with when and how.
    var checks: [(time: Double, message: STUNMessage, transport: ICEAgent.Transport)] {
        transmitted.compactMap { entry in
            guard let message = try? STUNMessage(decoding: entry.bytes), message.type == .bindingRequest,
                message.username?.hasPrefix(remoteUfrag) == true
            else { return nil }
            return (entry.time, message, entry.transport)
        }
    }

    /// Advances the fake clock to `time` the way the driver does: from one of the agent's
    /// ``ICEAgent/nextDeadline``s to the next, polling at each, answering new checks when
    /// ``answering``. A deadline that does not move past the time it was polled at (a driver
    /// would spin) is recorded as an issue.
    mutating func run(until time: Double) {
        while now < time - 1e-9 {
            guard let deadline = agent.nextDeadline, deadline < time else {
                now = time
                poll()
                return
            }
            now = max(now, deadline)
            poll()
            polls += 1
            if let next = agent.nextDeadline, next <= now {
                Issue.record("the agent's next deadline \(next) did not move past \(now) after a poll")
                return
            }
        }
    }

    /// Polls the agent now, answering new checks when ``answering``.
    mutating func poll() {
        let before = transmitted.count
        agent.poll(now: now)
        collect()
        if answering { answerChecks(from: before) }
    }

    /// Answers the checks transmitted since index `start` as an ICE-lite peer would, and those the
    /// answers make the agent send (a nomination follows a valid check at once).
    mutating func answerChecks(from start: Int) {
        var index = start
        while index < transmitted.count {
            let entry = transmitted[index]
            index += 1
            guard let request = try? STUNMessage(decoding: entry.bytes), request.type == .bindingRequest,
                request.username?.hasPrefix(remoteUfrag) == true
            else { continue }
            guard case .udp(let socket, _) = entry.transport, let mapped = socketAddresses[socket] else { continue }
            let response = STUNMessage(type: .bindingSuccess, transactionID: request.transactionID, attributes: [.xorMappedAddress(mapped)])
            guard let bytes = try? response.encoded(integrityKey: STUNIntegrityKey(Array(remotePassword.utf8)), fingerprint: true) else { continue }
            deliver(bytes, on: socket)
        }
    }

    /// A datagram from the remote host to one of the agent's sockets (the IPv4 one by default).
    @discardableResult
    mutating func deliver(_ bytes: [UInt8], from source: TransportAddress = remoteHost, on socket: ICEAgent.Socket = .ipv4) -> ICEAgent.Inbound {
        let inbound = bytes.withUnsafeBytes { agent.receive($0, from: source, on: socket, now: now) }
        collect()
        return inbound
    }

    func firstEvent(_ matches: (ICEAgent.Event) -> Bool) -> (time: Double, event: ICEAgent.Event)? {
        events.first { matches($0.event) }
    }

    var timelineNames: [String] {
        events.compactMap { if case .timeline(let entry) = $0.event { "\(entry.group):\(entry.name)" } else { nil } }
    }
}

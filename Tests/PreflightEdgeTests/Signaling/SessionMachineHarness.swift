import Logging
import NIOCore
import PreflightCore
import Synchronization
import Testing

@testable import PreflightEdge

/// Signaling sessions of one edge without a socket: each ``SignalingSessionMachine`` gets the
/// edge's real call router, media service (no socket bound: its sessions are tables), admissions
/// and call event log; time is a number the test moves. A session's notices (from the router,
/// the media service) wait in its queue until the test delivers them.
final class SessionMachineHarness: Sendable {
    static let echoApplication = "AP-echo"
    static let recordApplication = "AP-record"
    static let dialApplication = "AP-dial"
    static let ringTimeout = 30.0

    let configuration: EdgeConfiguration
    let router: CallRouter
    let media: MediaService
    let admissions: SessionAdmissionGate
    let callEvents: CallEventLog
    /// One count for every harness: ids never repeat across the edges of a test.
    private static let counter = Mutex(0)
    private let batches = Mutex<[StoreWriter.Batch]>([])

    /// The edge's view of the others, when it is one of several (``clustered(_:)``).
    let cluster: EdgeCluster?

    init(maximumSessions: Int = 1000, resumeWindow: Duration = .seconds(10), edgeName: String = "edge-a", clustered: Bool = false) {
        var configuration = EdgeConfiguration(
            edgeName: edgeName, apiKeys: [:], accounts: [:],
            applications: [Self.echoApplication: .echo, Self.recordApplication: .recordPlayback],
            maximumSessions: maximumSessions, sessionResumeWindow: resumeWindow)
        configuration.dialApplications = [Self.dialApplication: DialConfiguration(ringTimeout: .seconds(Self.ringTimeout))]
        self.configuration = configuration
        media = MediaService(configuration: configuration.media)
        cluster = clustered ? EdgeCluster(edgeName: edgeName) : nil
        router = CallRouter(media: media, limits: configuration.callLimits, cluster: cluster)
        admissions = SessionAdmissionGate(limits: .init(total: maximumSessions))
        callEvents = CallEventLog(limits: configuration.callLimits)
    }

    /// Edges named `names` that share a database.
    static func clustered(_ names: String...) -> [SessionMachineHarness] {
        names.enumerated().map { index, name in
            let edge = SessionMachineHarness(edgeName: name, clustered: true)
            edge.cluster?.trunkAddress = try? SocketAddress(ipAddress: "198.18.\(index).1", port: 3478)
            return edge
        }
    }

    /// Carries every message the edges queued for each other, as JSON text (the bus's), until
    /// none is left. - Returns: the messages carried.
    @discardableResult
    static func pump(_ edges: [SessionMachineHarness], now: Int64? = nil) throws -> [ClusterMessage] {
        var carried: [ClusterMessage] = []
        while true {
            let messages = edges.flatMap { $0.cluster?.takeOutgoing() ?? [] }
            if messages.isEmpty { return carried }
            for message in messages {
                let received = try ClusterMessage(jsonText: message.jsonText())
                #expect(received == message)
                carried.append(received)
                for edge in edges { edge.cluster?.receive(received, router: edge.router, now: now ?? EdgeCluster.unixMilliseconds()) }
            }
        }
    }

    /// Call events handed to the store so far.
    var storedBatches: [StoreWriter.Batch] { batches.withLock { $0 } }

    /// A new session at `now`, waiting for its hello.
    func session(now: Double = 0, draining: Bool = false) -> MachineUnderTest {
        let notices = NoticeQueue()
        let environment = SignalingSessionMachine.Environment(
            configuration: configuration, calls: router, media: media, admissions: admissions, callEvents: callEvents,
            storeEvents: { [self] batch in self.batches.withLock { $0.append(batch) } }, notices: notices,
            hostCandidate: ICECandidate(foundation: "1", priority: 1, address: "198.18.0.1", port: 3478, type: .host),
            iceServers: { _ in [] },
            randomHex: { bytes in
                let next = Self.counter.withLock { value in
                    value += 1
                    return value
                }
                return String(repeating: "0", count: max(0, 2 * bytes - String(next, radix: 16).count)) + String(next, radix: 16)
            },
            isDraining: { draining },
            unixMilliseconds: { 1_800_000_000_000 },
            logger: Logger(label: "test"))
        return MachineUnderTest(machine: SignalingSessionMachine(environment: environment, now: now), notices: notices)
    }

    /// Claims for `identity` whose outgoing application is `application`.
    static func claims(_ identity: String, application: String = dialApplication, incoming: Bool = true) -> AccessTokenClaims {
        AccessTokenClaims(
            jti: "j-\(identity)", iss: "SK1", sub: "AC1", exp: nil,
            grants: .init(identity: identity, voice: .init(outgoing: .init(applicationSID: application), incoming: .init(allow: incoming))))
    }

    /// A client's ICE parameters.
    static func clientICE() -> ICEParameters {
        let (ufrag, pwd) = ICEParameters.randomCredentials()
        return ICEParameters(ufrag: ufrag, pwd: pwd)
    }
}

/// A session's queue of notices, delivered when the test says.
final class NoticeQueue: SessionNoticeSink {
    private let queue = Mutex<[SignalingSessionMachine.Input]>([])

    func deliver(_ notice: CallRouter.Notice) { queue.withLock { $0.append(.call(notice)) } }
    func deliver(_ notice: SessionMediaNotice) { queue.withLock { $0.append(.media(notice)) } }

    func take() -> [SignalingSessionMachine.Input] {
        queue.withLock { queue in
            defer { queue.removeAll() }
            return queue
        }
    }
}

/// One machine and what it asked for.
struct MachineUnderTest {
    var machine: SignalingSessionMachine
    let notices: NoticeQueue
    /// Messages it sent, oldest first.
    var sent: [SignalingMessage] = []
    /// Everything else it asked for.
    var effects: [SignalingSessionMachine.Output] = []

    mutating func handle(_ input: SignalingSessionMachine.Input, now: Double) {
        machine.handle(input, now: now)
        collect()
    }

    mutating func poll(now: Double) {
        machine.poll(now: now)
        collect()
    }

    /// Hands the machine the notices waiting for it.
    mutating func deliverNotices(now: Double) {
        for notice in notices.take() { handle(notice, now: now) }
    }

    mutating func collect() {
        for output in machine.takeOutputs() {
            if case .send(let message) = output { sent.append(message) } else { effects.append(output) }
        }
    }

    /// `hello` with a token the driver verified as `claims`.
    mutating func signIn(_ claims: AccessTokenClaims, now: Double = 0) {
        handle(.message(.hello(token: "token", client: nil)), now: now)
        handle(.tokenVerified(.success(claims)), now: now)
    }

    /// The last message sent; the list is emptied.
    mutating func takeSent() -> [SignalingMessage] {
        defer { sent.removeAll() }
        return sent
    }

    /// The code of the last `error` sent.
    var lastErrorCode: Int? {
        for message in sent.reversed() { if case .error(let info) = message { return info.code } }
        return nil
    }

    /// The last `hangup` sent.
    var lastHangup: SignalingMessage.Hangup? {
        for message in sent.reversed() { if case .hangup(let hangup) = message { return hangup } }
        return nil
    }

    /// The last `answer` sent.
    var lastAnswer: SignalingMessage.Answer? {
        for message in sent.reversed() { if case .answer(let answer) = message { return answer } }
        return nil
    }
}

import Crypto
import Foundation
import NIOCore
import PreflightCore
import PreflightEdge
import PreflightTesting
import Synchronization
import Testing

/// The attack suite: each test starts a real `preflight serve` process, attacks it over real
/// loopback sockets, and checks that it is still up, refused what it had to, sent nothing it must
/// not, and kept its memory bounded. One serialized parent suite, so that attacks never overlap
/// and the RSS figures of one edge are not disturbed by another attack.
@Suite(.realTime, .serialized) enum AttackTests {}

/// A `preflight serve` child process under attack, with its standard error (the edge's log) in a
/// temporary file that the test reads back.
struct AttackedEdge {
    let edge: EdgeProcess
    let logURL: URL
    /// The HTTP/WebSocket port.
    let port: Int

    /// The preflight executable that `swift test` builds beside the test bundle, or the one
    /// `PREFLIGHT_ATTACK_EXECUTABLE` names (another build, for figures before and after a change).
    static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["PREFLIGHT_ATTACK_EXECUTABLE"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("preflight")
    }

    /// Starts `preflight serve --port 0 <arguments>` at log level info, its log captured.
    static func start(
        _ arguments: [String] = [], account: String = LocalEdge.accountSID, apiKeySID: String = LocalEdge.apiKeySID
    ) async throws -> AttackedEdge {
        let logURL = FileManager.default.temporaryDirectory.appendingPathComponent("preflight-attack-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: logURL.path, contents: nil) else {
            throw RawWebSocketError(message: "cannot create \(logURL.path)")
        }
        let log = try FileHandle(forWritingTo: logURL)
        defer { try? log.close() }  // the child holds its own descriptor
        let edge = try await EdgeProcess.start(
            executable: executable, arguments: ["--log-level", "info"] + arguments, standardError: log, account: account, apiKeySID: apiKeySID)
        guard let url = URL(string: edge.signalingURL), let port = url.port else {
            edge.kill()
            throw RawWebSocketError(message: "unexpected signaling URL \(edge.signalingURL)")
        }
        return AttackedEdge(edge: edge, logURL: logURL, port: port)
    }

    /// Kills the process and removes its log.
    func stop() {
        edge.kill()
        try? FileManager.default.removeItem(at: logURL)
    }

    var isRunning: Bool { edge.process.isRunning }

    /// The edge's resident set size, KiB, from /proc/<pid>/status (VmRSS).
    func rssKiB() throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(edge.pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try #require(Int(line.split(whereSeparator: \.isWhitespace).dropFirst().first ?? ""))
    }

    /// The CPU time the edge process used so far, seconds (user and system, /proc/<pid>/stat).
    func cpuSeconds() throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(edge.pid)/stat", encoding: .utf8)
        // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
        let fields = try #require(stat.split(separator: ")").last).split(separator: " ")
        let ticks = try #require(Double(fields[11])) + (try #require(Double(fields[12])))
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The log's raw bytes split at newlines (no decoding, so that a stray ESC or invalid UTF-8 is
    /// seen as it was written).
    func logLines() throws -> [ArraySlice<UInt8>] {
        let data = try Data(contentsOf: logURL)
        return Array(data).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
    }

    /// What every attack asserts about the log: no line longer than 1 KiB and no escape byte, so
    /// attacker text can neither flood nor forge nor recolour the edge's log.
    func expectSaneLog(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let lines = try logLines()
        let longest = lines.map(\.count).max() ?? 0
        #expect(longest <= 1024, "longest log line: \(longest) bytes", sourceLocation: sourceLocation)
        #expect(!lines.contains { $0.contains(0x1B) }, "a log line carries ESC", sourceLocation: sourceLocation)
    }

    /// Mints a valid token with the process's secret.
    func token(application: TestApplication = .echo, identity: String = "attacker") async throws -> String {
        try await edge.token(application: application, identity: identity)
    }

    /// The `Authorization` header of the edge's API key (HTTP Basic).
    var apiKeyAuthorization: String {
        "Authorization: Basic " + Data("\(edge.apiKeySID):\(edge.secret)".utf8).base64EncodedString()
    }

    /// The edge's counters from `GET /status` (the API key's Basic auth): the numeric fields.
    func status() async throws -> [String: Int] {
        let reply = try await RawHTTP.get(port: port, path: "/status", headers: [apiKeyAuthorization])
        let body = try #require(reply.text.range(of: "\r\n\r\n").map { reply.text[$0.upperBound...] }, "no body: \(reply.text.prefix(80))")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any], "not a JSON object: \(body.prefix(80))")
        return object.compactMapValues { $0 as? Int }
    }

    /// Waits until the counters satisfy `condition` (read every 50 ms), or `timeout` passed.
    /// - Returns: the last counters read.
    @discardableResult
    func awaitStatus(upTo timeout: Duration, until condition: ([String: Int]) -> Bool) async throws -> [String: Int] {
        var counters: [String: Int] = [:]
        _ = try await eventually(within: timeout, every: .milliseconds(50)) {
            counters = try await status()
            return condition(counters)
        }
        return counters
    }

    /// Waits until counter `name` stops moving (two reads 200 ms apart agree), or `timeout` passed.
    /// - Returns: its value then.
    func awaitSteady(_ name: String, upTo timeout: Duration = .seconds(10)) async throws -> Int {
        let deadline = ContinuousClock.now + timeout
        var last = try await status()[name] ?? 0
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            let now = try await status()[name] ?? 0
            if now == last { return now }
            last = now
        }
        return last
    }

    /// Connects a raw WebSocket to the edge.
    func connect() async throws -> RawWebSocket {
        try await RawWebSocket.connect(port: port)
    }

    /// Says hello with `token` on a fresh connection and waits for the edge's verdict.
    func hello(_ token: String) async throws -> RawWebSocket {
        let socket = try await connect()
        try await socket.send(.hello(token: token, client: "attack/1"))
        await socket.awaitVerdict()
        return socket
    }

    /// The edge still serves: the process runs and a fresh client with a fresh identity completes
    /// hello → welcome.
    func expectAlive(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(isRunning, "the edge process exited", sourceLocation: sourceLocation)
        let socket = try await hello(try await token(identity: "bystander-\(UUID().uuidString.prefix(8))"))
        #expect(socket.welcomed, "no welcome for a fresh client: \(socket.summary)", sourceLocation: sourceLocation)
        await socket.close()
    }

    // MARK: Hand-signed tokens

    /// A JWT signed with the process's secret over exactly `header` and `payload` (raw JSON text),
    /// so that claims no well-behaved issuer would write still carry a valid signature.
    func handMade(header: String = Self.header, payload: String) -> String {
        Self.handMade(header: header, payload: payload, secret: edge.secret)
    }

    static let header = #"{"alg":"HS256","typ":"JWT","cty":"twilio-fpa;v=1"}"#

    static func handMade(header: String, payload: String, secret: String) -> String {
        let signingInput = base64URL(Data(header.utf8)) + "." + base64URL(Data(payload.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Data(signingInput.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return signingInput + "." + base64URL(Data(mac))
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Claims as raw JSON: time claims are JSON number text (any number, not only integers);
    /// `nil` leaves a claim out. By default a valid token for the echo application, issued now.
    static func claims(
        exp: String? = nil, nbf: String? = nil, iat: String? = nil, iss: String = LocalEdge.apiKeySID,
        sub: String = LocalEdge.accountSID, identity: String = "mallory"
    ) -> String {
        let now = Int(Date().timeIntervalSince1970)
        let grants = #"{"identity":"\#(identity)","voice":{"outgoing":{"application_sid":"\#(LocalEdge.applicationSID(.echo))"}}}"#
        var json = #"{"jti":"attack","iss":"\#(iss)","sub":"\#(sub)","exp":\#(exp ?? "\(now + 3600)")"#
        if let nbf { json += #","nbf":\#(nbf)"# }
        json += #","iat":\#(iat ?? "\(now)")"#
        return json + #","grants":\#(grants)}"#
    }
}

/// A call set up over signaling the way docs/protocol.md describes (hello → welcome, invite →
/// ringing → answer), held open so that its ICE credentials stay live on the media port.
struct AttackCall {
    let signaling: RawWebSocket
    let edgeUfrag: String
    let edgePassword: String
    let clientUfrag: String
    /// The edge's media address, from the answer's candidate.
    let media: SocketAddress
    /// The call's sid, from the answer (empty where a test made the call by hand).
    var callSid = ""

    static func open(
        on edge: AttackedEdge, application: TestApplication = .echo, identity: String = "caller", codecs: [String] = ["PCMU"]
    ) async throws -> AttackCall {
        let signaling = try await edge.hello(try await edge.token(application: application, identity: identity))
        try #require(signaling.welcomed, "no welcome: \(signaling.summary)")
        let (clientUfrag, clientPassword) = ICEParameters.randomCredentials()
        try await signaling.send(.invite(.init(ice: ICEParameters(ufrag: clientUfrag, pwd: clientPassword), codecs: codecs)))
        await signaling.wait(upTo: .seconds(10)) { socket in
            socket.messages.contains { if case .answer = $0 { true } else { false } } || socket.errorCode != nil
        }
        let answer = try #require(
            signaling.messages.lazy.compactMap { if case .answer(let answer) = $0 { answer } else { nil } }.first,
            "no answer: \(signaling.summary)")
        let candidate = try #require(answer.ice.candidates.first)
        return AttackCall(
            signaling: signaling, edgeUfrag: answer.ice.ufrag, edgePassword: answer.ice.pwd, clientUfrag: clientUfrag,
            media: try SocketAddress(ipAddress: candidate.address, port: Int(candidate.port)), callSid: answer.callSid)
    }

    /// The username every check of this call carries.
    var username: String { "\(edgeUfrag):\(clientUfrag)" }

    /// A valid connectivity check of the controlling client (RFC 8445 §7.2.2), nominating with
    /// `nominate`.
    func check(nominate: Bool) throws -> [UInt8] {
        var attributes: [STUNAttribute] = [
            .username(username), .priority(ICECandidate.priority(typePreference: 126, localPreference: 65535, component: 1)),
            .iceControlling(UInt64.random(in: 0...UInt64.max)),
        ]
        if nominate { attributes.append(.useCandidate) }
        return try STUNMessage(type: .bindingRequest, attributes: attributes)
            .encoded(integrityKey: Array(edgePassword.utf8), fingerprint: true)
    }

    /// One 20 ms frame (160 bytes of payload) of a client stream, PCMU unless `format` says otherwise.
    static func rtp(sequence: UInt16, ssrc: UInt32 = 0x1234_5678, format: AudioPayloadFormat = .pcmu) throws -> [UInt8] {
        try RTPPacket(
            payloadType: format.payloadType, sequenceNumber: sequence, timestamp: UInt32(sequence) &* format.frameTimestampIncrement, ssrc: ssrc,
            payload: ArraySlice(repeating: 0xFF, count: 160)
        ).encoded()
    }

    func hangUp() async {
        await signaling.close()
    }
}

/// A value shared with escaping closures (a `Mutex` itself cannot be captured by them).
final class Shared<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    var value: Value { mutex.withLock { $0 } }

    func update(_ body: (inout Value) -> Void) { mutex.withLock { body(&$0) } }
}

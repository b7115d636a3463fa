import Foundation
import Logging
import PreflightCore
import PreflightEdge
import PreflightNIO

/// `preflight load --generator EXEC`: the edge's side of the batched load benchmark. It starts the
/// edge, opens the sessions over signaling (each an echo call), and hands the media to an outside
/// generator (Benchmarks/Load/loadgen.c), which sends each session's precomputed ICE check from
/// its own source address and then the RTP, and measures the edge's CPU itself: Swift's own
/// per-packet cost would otherwise make the generator, not the edge, the limit.
struct LoadGeneratorRun {
    let sessions: Int
    let generator: String
    let generatorArguments: [String]
    /// More `preflight serve` arguments (e.g. `--media-threads 2`).
    let edgeArguments: [String]

    /// One line of the sessions file: where the media goes and the session's ICE check.
    struct Session {
        var edgeHost: String
        var edgePort: UInt16
        var remote: ICEParameters
        var callSid: String?
        var check: [UInt8] = []

        var line: String {
            "\(edgeHost) \(edgePort) " + LoadGeneratorRun.hex(check)
        }
    }

    /// `bytes` as lowercase hex, as the generator's files carry them.
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// The ICE check the generator sends for session `index`: a Binding request as a controlling
    /// agent's nomination (USERNAME, PRIORITY, ICE-CONTROLLING, USE-CANDIDATE, MESSAGE-INTEGRITY,
    /// FINGERPRINT), its transaction id starting with the session index so that the generator
    /// finds the session of each answer without a table.
    static func check(index: Int, localUfrag: String, remote: ICEParameters) throws(PreflightError) -> [UInt8] {
        var random = SystemRandomNumberGenerator()
        let request = STUNMessage(
            type: .bindingRequest, transactionID: STUNTransactionID(high: UInt32(truncatingIfNeeded: index), low: random.next()),
            attributes: [
                .username("\(remote.ufrag):\(localUfrag)"),
                .priority(ICECandidate.priority(typePreference: 110, localPreference: 65535, component: 1)),
                .iceControlling(random.next()), .useCandidate,
            ])
        return try request.encoded(integrityKey: STUNIntegrityKey(Array(remote.pwd.utf8)), fingerprint: true)
    }

    /// A random ICE string of `count` characters (RFC 8445 §5.3 ice-chars).
    static func iceString(_ count: Int) -> String {
        let characters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/")
        var random = SystemRandomNumberGenerator()
        return String((0..<count).map { _ in characters[Int(random.next(upperBound: UInt(characters.count)))] })
    }

    /// Runs the edge and the generator; returns the generator's exit status.
    func run(progress: @escaping @Sendable (String) -> Void) async throws -> Int32 {
        // A search for the highest clean rate runs many windows on the same sessions.
        let edge = try await LoadRun.startEdge(sessions: sessions, arguments: ["--max-duration", "3600"] + edgeArguments)
        return try await edge.stopping {
            progress("load: edge pid \(edge.pid) at \(edge.signalingURL); opening \(sessions) sessions for \(generator)")
            let logger = Logger(label: "preflight.load", factory: { _ in SwiftLogNoOpLogHandler() })
            let opened = try await withThrowingTaskGroup(of: (Int, SignalingClient, String, Session)?.self) { group in
                var opened: [(Int, SignalingClient, String, Session)] = []
                var started = 0
                for index in 0..<sessions {
                    if started - opened.count >= 50, let result = try await group.next() { result.map { opened.append($0) } }
                    started += 1
                    let token = try await edge.token(application: .echo, identity: "load-\(index)")
                    group.addTask { await Self.open(index: index, url: edge.signalingURL, token: token, logger: logger) }
                }
                for try await result in group { result.map { opened.append($0) } }
                return opened.sorted { $0.0 < $1.0 }
            }
            defer {
                for (_, signaling, _, _) in opened { Task { await signaling.close() } }
            }
            guard opened.count == sessions else {
                throw PreflightError(code: .mediaConnectionFailed, message: "load: \(sessions - opened.count) of \(sessions) sessions did not open")
            }
            // Transaction ids carry the line number: renumber the checks in file order.
            var lines: [String] = []
            for (position, (_, _, localUfrag, session)) in opened.enumerated() {
                var session = session
                session.check = try Self.check(index: position, localUfrag: localUfrag, remote: session.remote)
                lines.append(session.line)
            }
            progress("load: \(opened.count) sessions open; running \(generator)")
            let status = try await Self.runGenerator(
                generator, file: lines, arguments: ["--mode", "edge", "--sessions-file"], then: ["--server-pid", "\(edge.pid)"] + generatorArguments)
            for (_, signaling, _, session) in opened {
                if let callSid = session.callSid { await signaling.hangup(callSid: callSid, reason: "load run over") }
            }
            return status
        }
    }

    /// Writes `lines` to a file of its own, runs `generator` with `arguments`, the file's path and
    /// `then`, and returns its exit status once it exited (the file removed). The generator
    /// inherits standard output and error: its figures are the run's output.
    static func runGenerator(_ generator: String, file lines: [String], arguments: [String], then: [String]) async throws -> Int32 {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("preflight-load-\(getpid()).lines")
        try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: generator)
        process.arguments = arguments + [file.path] + then
        // Told by the termination handler: Foundation's `waitUntilExit` spins a run loop on
        // Linux, and a core busy here would be taken from the edge or the generator it measures.
        let (exit, exited) = AsyncStream.makeStream(of: Void.self)
        process.terminationHandler = { _ in exited.finish() }
        do {
            try process.run()
        } catch {
            throw PreflightError(code: .processLaunchFailed, message: "load: cannot start the generator \(generator)", underlying: error)
        }
        for await _ in exit {}
        // Cancelled while it ran: it stops with the run (its exit status is read only once it exited).
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        return process.terminationStatus
    }

    /// Signs in and places an echo call without media of its own: the generator sends it.
    static func open(index: Int, url: String, token: String, logger: Logger) async -> (Int, SignalingClient, String, Session)? {
        let signaling = SignalingClient(
            configuration: SignalingClientConfiguration(url: url, accessToken: token, clientName: "preflight-load"), logger: logger)
        Task { await signaling.run() }
        let localUfrag = iceString(8)
        do {
            _ = try await signaling.connect()
            let answer = try await signaling.invite(.init(ice: ICEParameters(ufrag: localUfrag, pwd: iceString(24)), codecs: ["PCMU"]))
            guard let candidate = answer.ice.candidates.first(where: { $0.transport == "udp" && !$0.address.contains(":") }) else {
                await signaling.close()
                return nil
            }
            let session = Session(edgeHost: candidate.address, edgePort: candidate.port, remote: answer.ice, callSid: answer.callSid)
            return (index, signaling, localUfrag, session)
        } catch {
            await signaling.close()
            return nil
        }
    }
}

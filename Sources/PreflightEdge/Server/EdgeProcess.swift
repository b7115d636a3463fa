import Foundation
import PreflightCore

/// `preflight serve` as a child process on ephemeral loopback ports, with ``LocalEdge``'s API key,
/// account and application sids (or an account and key of the caller's): for the load benchmark (`preflight load`), which measures the
/// edge's CPU apart from its own, and for tests that must kill a real edge.
public struct EdgeProcess: Sendable {
    /// The running process.
    public let process: Process
    /// The API key secret the edge trusts (with ``apiKeySID``).
    public let secret: String
    /// The API key the edge trusts: ``LocalEdge/apiKeySID`` unless the caller chose another.
    public let apiKeySID: String
    /// The account the edge serves: ``LocalEdge/accountSID`` unless the caller chose another.
    public let account: String
    /// The edge's signaling URL, as it printed it.
    public let signalingURL: String

    /// The process id.
    public var pid: Int32 { process.processIdentifier }

    /// Starts `executable serve --port 0 …` with a fresh secret and waits for its
    /// "signaling <url>" and "media <address>" lines.
    /// - Parameters:
    ///   - executable: the `preflight` executable.
    ///   - arguments: more `serve` arguments (limits, log level).
    ///   - standardError: where the edge's logs go (e.g. a file a test reads back); the parent's
    ///     standard error by default.
    ///   - account: the account it serves (two edges of two accounts on one database).
    ///   - apiKeySID: its API key.
    /// - Throws: ``PreflightError`` `.processLaunchFailed` when it cannot start or exits before
    ///   listening (docs/errors.md).
    public static func start(
        executable: URL, arguments: [String] = [], standardError: FileHandle? = nil,
        account: String = LocalEdge.accountSID, apiKeySID: String = LocalEdge.apiKeySID
    ) async throws(PreflightError) -> EdgeProcess {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw PreflightError(
                code: .processLaunchFailed,
                message: "edge process: no preflight executable at \(executable.path) (build it with `swift build`)")
        }
        let secret = LocalEdge.randomSecret()
        let process = Process()
        process.executableURL = executable
        process.arguments = ["serve", "--port", "0"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["PREFLIGHT_API_KEY"] = apiKeySID
        environment["PREFLIGHT_API_SECRET"] = secret
        environment["PREFLIGHT_ACCOUNT"] = account
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        if let standardError { process.standardError = standardError }
        do {
            try process.run()
        } catch {
            throw PreflightError(code: .processLaunchFailed, message: "edge process: cannot start \(executable.path)", underlying: error)
        }
        // Read on a thread of its own: a loaded machine can take seconds to start the edge.
        let reader = output.fileHandleForReading
        let text = try await BlockingWork.run("preflight.edge-process") { () throws(PreflightError) -> String in
            var text = ""
            while !text.contains("\nmedia ") {
                let data = reader.availableData
                guard !data.isEmpty else {
                    process.waitUntilExit()
                    throw PreflightError(
                        code: .processLaunchFailed,
                        message: "edge process: exited with status \(process.terminationStatus) before listening")
                }
                text += String(decoding: data, as: UTF8.self)
            }
            return text
        }
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("signaling ") }) else {
            process.terminate()
            throw PreflightError(code: .malformed, message: "edge process: printed no signaling URL")
        }
        return EdgeProcess(
            process: process, secret: secret, apiKeySID: apiKeySID, account: account,
            signalingURL: String(line.dropFirst("signaling ".count)))
    }

    /// Mints a token for `application` with the process's secret.
    public func token(application: TestApplication = .echo, identity: String = "preflight-user") async throws(PreflightError) -> String {
        let issuer = try await AccessTokenIssuer(apiKeySID: apiKeySID, apiKeySecret: secret, accountSID: account)
        return try await issuer.mint(identity: identity, outgoingApplicationSID: LocalEdge.applicationSID(application))
    }

    /// Mints a token for calls between clients with the process's secret (see
    /// ``LocalEdge/callToken(issuer:identity:answerOnBridge:incomingAllow:lifetime:)``).
    public func callToken(identity: String, answerOnBridge: Bool = false, incomingAllow: Bool = true) async throws(PreflightError) -> String {
        let issuer = try await AccessTokenIssuer(apiKeySID: apiKeySID, apiKeySecret: secret, accountSID: account)
        return try await LocalEdge.callToken(
            issuer: issuer, identity: identity, answerOnBridge: answerOnBridge, incomingAllow: incomingAllow)
    }

    /// SIGKILL: no goodbye, no closing handshake, as a crash. Waits for the exit.
    public func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Runs `body` with the edge running, then stops it gracefully on a thread of its own,
    /// whether `body` returned or threw: the stop waits for the exit (about 2 s), which in a
    /// `defer` would hold one of the cooperative pool's threads (two on a two-core machine).
    public func stopping<Value>(after body: () async throws -> Value) async throws -> Value {
        let value: Value
        do {
            value = try await body()
        } catch {
            await stopOffThePool()
            throw error
        }
        await stopOffThePool()
        return value
    }

    private func stopOffThePool() async {
        await BlockingWork.run("preflight.edge-stop") { [self] in stop() }
    }

    /// SIGTERM without waiting: the edge drains (``EdgeConfiguration/drainLimit``) and exits.
    public func terminate() {
        guard process.isRunning else { return }
        process.terminate()
    }

    /// Whether the process still runs.
    public var isRunning: Bool { process.isRunning }

    /// SIGTERM and wait: a graceful stop.
    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// The process's user + system CPU seconds from /proc/<pid>/stat (Linux); `nil` elsewhere.
    public func cpuSeconds() -> Double? {
        Self.cpuSeconds(pid: pid)
    }

    /// Process `pid`'s user + system CPU seconds from /proc/<pid>/stat (Linux); `nil` elsewhere
    /// or when it is gone.
    public static func cpuSeconds(pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // After "pid (comm)": fields 3… of proc(5); utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

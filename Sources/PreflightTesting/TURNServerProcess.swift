import Foundation
import NIOCore
import NIOPosix
import PreflightCore
import PreflightEdge

/// coturn (`turnserver`, Debian package `coturn`) as a child process on loopback, configured the
/// way deployments run it with Preflight: TURN REST API credentials (`use-auth-secret`,
/// `static-auth-secret`), UDP and TCP listeners, and optionally TLS with a given certificate.
public struct TURNServerProcess: Sendable {
    /// The running process.
    public let process: Process
    /// The listening address (UDP and TCP).
    public let host: String
    /// The UDP/TCP listening port.
    public let port: Int
    /// The TLS listening port, when started with a certificate.
    public let tlsPort: Int?
    /// The shared secret for ``credentials(identity:lifetime:)``.
    public let secret: String
    /// The realm coturn announces.
    public let realm: String
    /// Where coturn logs.
    public let logFile: String

    /// The `turnserver` executable on `PATH`, if installed: the same lookup as the tests' skip
    /// rule (``ExternalTool/canRun(needing:root:)``), so a test skipped for a missing coturn and
    /// one that starts it agree.
    public static var executable: URL? {
        ExternalTool.path(of: "turnserver").map { URL(fileURLWithPath: $0) }
    }

    /// Starts coturn on `host` and waits until it accepts TCP connections.
    /// - Parameters:
    ///   - host: the address to listen and relay on; 127.0.0.1 by default (loopback peers are
    ///     allowed).
    ///   - secret: the REST API secret; random by default.
    ///   - certificate: a PEM certificate and key file pair for a TLS listener; none by default.
    ///   - extraArguments: more `turnserver` options.
    /// - Throws: ``PreflightError`` `.processLaunchFailed` when coturn is not installed, cannot be
    ///   started or does not start listening within 10 s; `.socketBindFailed` when no free port is
    ///   found (docs/errors.md).
    public static func start(
        host: String = "127.0.0.1", secret: String = LocalEdge.randomSecret(), certificate: (cert: String, key: String)? = nil,
        extraArguments: [String] = []
    ) async throws(PreflightError) -> TURNServerProcess {
        guard let executable else {
            throw PreflightError(code: .processLaunchFailed, message: "coturn: no turnserver on PATH (apt-get install coturn)")
        }
        let port = try await freePort(host: host)
        let tlsPort = certificate == nil ? nil : try await freePort(host: host)
        let realm = "preflight.test"
        let logFile = FileManager.default.temporaryDirectory.appendingPathComponent("turnserver-\(port).log").path
        var arguments = [
            "-n", "--listening-ip", host, "--relay-ip", host, "--listening-port", "\(port)",
            "--use-auth-secret", "--static-auth-secret", secret, "--realm", realm, "--fingerprint",
            "--no-cli", "--no-dtls", "--simple-log", "--log-file", logFile, "--no-stdout-log",
            "--pidfile", FileManager.default.temporaryDirectory.appendingPathComponent("turnserver-\(port).pid").path,
            "--min-port", "30000", "--max-port", "60000",
        ]
        if host.hasPrefix("127.") { arguments.append("--allow-loopback-peers") }
        if let certificate, let tlsPort {
            arguments += ["--tls-listening-port", "\(tlsPort)", "--cert", certificate.cert, "--pkey", certificate.key]
        } else {
            arguments.append("--no-tls")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments + extraArguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw PreflightError(code: .processLaunchFailed, message: "coturn: cannot start \(executable.path)", underlying: error)
        }
        let server = TURNServerProcess(
            process: process, host: host, port: port, tlsPort: tlsPort, secret: secret, realm: realm, logFile: logFile)
        for _ in 0..<100 {
            if !process.isRunning {
                throw PreflightError(
                    code: .processLaunchFailed,
                    message: "coturn: exited with status \(process.terminationStatus) before listening (log: \(logFile))")
            }
            if await accepts(host: host, port: port), await accepts(host: host, port: tlsPort) { return server }
            try? await Task.sleep(for: .milliseconds(100))
        }
        server.stop()
        throw PreflightError(code: .processLaunchFailed, message: "coturn: not listening on \(host):\(port) after 10 s (log: \(logFile))")
    }

    /// Time-limited credentials the server accepts (the TURN REST API scheme).
    public func credentials(identity: String = "preflight-user", lifetime: Int64 = 3600) -> TURNRESTCredentials {
        TURNRESTCredentials(secret: secret, identity: identity, expiry: Int64(Date().timeIntervalSince1970) + lifetime)
    }

    /// `turn:host:port?transport=udp|tcp`.
    public func url(transport: ICEServerURL.Transport) -> String {
        "turn:\(host):\(port)?transport=\(transport.rawValue)"
    }

    /// `turns:host:tlsPort?transport=tcp`, when a TLS listener runs.
    public var tlsURL: String? {
        tlsPort.map { "turns:\(host):\($0)?transport=tcp" }
    }

    /// Stops coturn: SIGKILL and wait (coturn 4.6 can sit on SIGTERM for seconds while its
    /// relay threads drain, which would block the caller's thread).
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    static func freePort(host: String) async throws(PreflightError) -> Int {
        do {
            // An ephemeral TCP port the kernel just gave out is free for UDP too in practice.
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: host, port: 0).get()
            let port = channel.localAddress?.port ?? 0
            try await channel.close()
            return port
        } catch {
            throw PreflightError(code: .socketBindFailed, message: "coturn: no free port on \(host)", underlying: error)
        }
    }

    static func accepts(host: String, port: Int?) async -> Bool {
        guard let port else { return true }
        guard let channel = try? await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.milliseconds(200)).connect(host: host, port: port).get()
        else { return false }
        try? await channel.close()
        return true
    }
}

import Foundation
import PreflightCore

/// A headless PulseAudio server (Debian `pulseaudio`) as a child process, with a null sink
/// (`spk`, a speaker nobody hears) whose monitor (`spk.monitor`) is a microphone that hears
/// it, and a null source (`mic`, a microphone that hears silence): real audio devices for tests
/// on a machine with no sound card. Each server has its own directory and socket, so servers
/// for parallel tests do not meet.
public struct PulseAudioServer: Sendable {
    /// The speaker: a null sink.
    public static let sink = "spk"
    /// The speaker's monitor: an input that hears what the speaker plays.
    public static let monitor = "spk.monitor"
    /// A silent microphone: a null source.
    public static let silentSource = "mic"
    /// A second speaker, the room: what a test plays here, ``roomMicrophone`` hears, apart from
    /// what the code under test plays on ``sink``.
    public static let room = "room"
    /// The room's monitor: a microphone that hears only what is played in the room.
    public static let roomMicrophone = "room.monitor"

    /// The server's process id (it daemonizes: see ``start(anonymous:)``).
    public let processIdentifier: pid_t
    /// Its runtime directory (socket, cookie, log).
    public let directory: URL
    /// The address clients connect to: `unix:<directory>/native` (`PULSE_SERVER`).
    public let address: String
    /// Where the server logs.
    public let logFile: URL

    /// The environment for outside clients (`paplay`, `parecord`, `pactl`) to reach this server.
    public var environment: [String: String] { ["PULSE_SERVER": address] }

    /// Starts a server and waits until it is ready.
    /// - Parameter anonymous: whether any client may connect (default: a UNIX socket, on which a
    ///   client of the same user is trusted anyway); `false` serves TCP on a free loopback port
    ///   and requires the server's cookie, which no client has, so every client is refused with
    ///   "access denied" (a permission test).
    /// - Throws: ``PreflightError`` `.processLaunchFailed` when `pulseaudio` is missing, exits, or
    ///   has no socket after 10 s.
    public static func start(anonymous: Bool = true) async throws(PreflightError) -> PulseAudioServer {
        guard let executable = ExternalTool.path(of: "pulseaudio") else {
            throw PreflightError(code: .processLaunchFailed, message: "PulseAudio: no pulseaudio on PATH (apt-get install pulseaudio)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("preflight-pulse-\(UUID().uuidString.prefix(8))")
        let socket = directory.appendingPathComponent("native")
        let logFile = directory.appendingPathComponent("pulseaudio.log")
        let port = anonymous ? 0 : try freePort()
        let protocolModule =
            anonymous
            ? "module-native-protocol-unix socket=\(socket.path) auth-anonymous=1"
            : "module-native-protocol-tcp listen=127.0.0.1 port=\(port) auth-anonymous=0"
        let address = anonymous ? "unix:\(socket.path)" : "tcp:127.0.0.1:\(port)"
        let script = """
            load-module \(protocolModule)
            load-module module-null-sink sink_name=\(sink)
            load-module module-null-source source_name=\(silentSource)
            load-module module-null-sink sink_name=\(room)
            set-default-sink \(sink)
            set-default-source \(monitor)

            """
        // Written on a thread of its own: a write ends with an fsync, which a disk busy with
        // builds and other tests can hold for seconds.
        let prepared = await BlockingWork.run("preflight.pulse-files") { () -> Result<Void, any Error> in
            Result {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try Data(script.utf8).write(to: directory.appendingPathComponent("server.pa"))
                try Data().write(to: logFile)
            }
        }
        let process = Process()
        do {
            try prepared.get()
            process.executableURL = URL(fileURLWithPath: executable)
            // As root PulseAudio warns and runs; a scratch HOME and runtime directory keep its
            // cookie, pid file and state apart from any other server's. No shared memory: the
            // sandboxes tests run in may not allow it. It daemonizes: the process we start exits
            // once the server is ready, and the server is not our child. Run in the foreground
            // it would close every inherited descriptor, Foundation's exit monitor among them,
            // and Foundation would then block its monitor thread waiting for it to exit, so that
            // no other child process's exit is ever seen. High priority and real-time
            // scheduling, as a desktop's server gets them (from rtkit): on a loaded machine a
            // server at normal priority stops taking a sink's audio for seconds, and the speaker
            // check rightly reports a stalled device (70406). Where the system refuses them, the
            // server warns and runs at normal priority.
            process.arguments = [
                "-n", "-F", directory.appendingPathComponent("server.pa").path, "--disable-shm", "--exit-idle-time=-1",
                "--daemonize=yes", "--use-pid-file=yes", "--high-priority=yes", "--realtime=yes",
                "--log-target=file:\(logFile.path)",
            ]
            var environment = ProcessInfo.processInfo.environment
            environment["HOME"] = directory.path
            environment["XDG_RUNTIME_DIR"] = directory.path
            environment["XDG_CONFIG_HOME"] = directory.path
            environment.removeValue(forKey: "PULSE_SERVER")
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
        } catch {
            throw PreflightError(code: .processLaunchFailed, message: "PulseAudio: cannot start \(executable)", underlying: error)
        }
        // The process we started exits with 0 once the daemon it forked is ready.
        for _ in 0..<100 where process.isRunning { try? await Task.sleep(for: .milliseconds(100)) }
        let pidFile = directory.appendingPathComponent("pulse/pid")
        guard !process.isRunning, process.terminationStatus == 0,
            let text = try? String(contentsOf: pidFile, encoding: .utf8),
            let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
            throw PreflightError(
                code: .processLaunchFailed, message: "PulseAudio: did not become ready in 10 s: \(log.suffix(500))")
        }
        return PulseAudioServer(processIdentifier: pid, directory: directory, address: address, logFile: logFile)
    }

    /// A TCP port on 127.0.0.1 that the kernel just gave out, so free.
    static func freePort() throws(PreflightError) -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(descriptor, raw, length) == 0 && getsockname(descriptor, raw, &length) == 0
            }
        }
        guard descriptor >= 0, bound else {
            throw PreflightError(code: .socketBindFailed, message: "PulseAudio: no free port on 127.0.0.1")
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Stops the server: SIGTERM now; the wait for its exit (SIGKILL after 2 s) and the removal
    /// of its directory go on on a thread of their own, so that the `defer` this is called from
    /// never holds one of the test process's few concurrency threads (a busy disk can make the
    /// removal alone take seconds).
    public func stop() {
        kill(processIdentifier, SIGTERM)
        let server = self
        let thread = Thread {
            for _ in 0..<200 where server.isRunning { usleep(10_000) }
            if server.isRunning { kill(server.processIdentifier, SIGKILL) }
            try? FileManager.default.removeItem(at: server.directory)
        }
        thread.name = "preflight.pulse-stop"
        thread.start()
    }

    /// Whether the server still runs (a zombie does not: it is not our child to reap).
    var isRunning: Bool {
        guard kill(processIdentifier, 0) == 0 else { return false }
        let stat = (try? String(contentsOfFile: "/proc/\(processIdentifier)/stat", encoding: .utf8)) ?? ""
        return !(stat.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).hasPrefix("Z") ?? false)
    }
}

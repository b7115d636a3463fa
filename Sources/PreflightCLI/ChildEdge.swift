import Foundation
import PreflightCore
import PreflightTesting

/// `preflight serve` as a child process on ephemeral loopback ports (the load benchmark's edge).
struct ChildEdge: Sendable {
    let process: Process
    let signalingURL: String
    var pid: Int32 { process.processIdentifier }

    /// Starts this executable's `serve` and waits for its "signaling <url>" line.
    static func start(secret: String, maximumSessions: Int) throws(PreflightError) -> ChildEdge {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["serve", "--port", "0", "--max-sessions", "\(maximumSessions)", "--log-level", "warning"]
        var environment = ProcessInfo.processInfo.environment
        environment["PREFLIGHT_API_KEY"] = EmbeddedEdge.apiKeySID
        environment["PREFLIGHT_API_SECRET"] = secret
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            throw PreflightError(code: .invalidArgument, message: "load: cannot start the edge process", underlying: error)
        }
        var text = ""
        while !text.contains("\nmedia ") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty {
                process.terminate()
                throw PreflightError(code: .invalidArgument, message: "load: the edge process exited before listening")
            }
            text += String(decoding: data, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("signaling ") }) else {
            process.terminate()
            throw PreflightError(code: .malformed, message: "load: the edge printed no signaling URL")
        }
        return ChildEdge(process: process, signalingURL: String(line.dropFirst("signaling ".count)))
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    /// The child's user + system CPU seconds, from /proc/<pid>/stat (Linux); `nil` elsewhere.
    func cpuSeconds() -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command name: state is field 3, utime 14 and stime 15 (1-based over the whole line).
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return (user + system) / ticks
    }

    /// This process's user + system CPU seconds.
    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
    }
}

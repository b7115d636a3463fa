import Foundation
import Logging
import NIOCore
import PreflightCore
import PreflightEdge
import PreflightNIO
import Synchronization

/// The load benchmark behind `preflight load`.
struct LoadRun {
    let sessions: Int
    let duration: Duration

    /// The figures a run measured.
    struct Result: CustomStringConvertible {
        var sessions: Int
        var connected: Int
        var seconds: Double
        var packetsSent: Int
        var echoesReceived: Int
        var edgeCPUSeconds: Double?
        var generatorCPUSeconds: Double
        var latencies: [Double]

        var description: String {
            let latency = DistributionSummary(latencies)
            let edgeCPU = edgeCPUSeconds.map { String(format: "%.0f %% of one core", $0 / seconds * 100) } ?? "n/a"
            return """
                sessions        \(connected) of \(sessions) connected
                packets/s       \(String(format: "%.0f", Double(packetsSent) / seconds)) sent to the edge, \(String(format: "%.0f", Double(echoesReceived) / seconds)) echoed back (\(String(format: "%.2f", packetsSent > 0 ? 100 * (1 - Double(echoesReceived) / Double(packetsSent)) : 0)) % not returned)
                edge CPU        \(edgeCPU)
                generator CPU   \(String(format: "%.0f %% of one core", generatorCPUSeconds / seconds * 100))
                echo latency    p50 \(String(format: "%.3f", latency.p50)) ms, p99 \(String(format: "%.3f", latency.p99)) ms, max \(String(format: "%.3f", latency.max)) ms (\(latency.count) echoes)
                """
        }
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

    /// `preflight serve` as a child process for `sessions` echo sessions from this one address
    /// (the per-address caps raised with the count), with `arguments` besides.
    static func startEdge(sessions: Int, arguments: [String] = []) async throws(PreflightError) -> EdgeProcess {
        try await EdgeProcess.start(
            executable: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(),
            arguments: [
                "--max-sessions", "\(sessions + 10)", "--max-sessions-per-account", "\(sessions + 10)",
                "--max-connections-per-address", "\(sessions + 10)", "--max-connections", "\(max(2048, sessions + 10))",
                "--log-level", "warning",
            ] + arguments)
    }

    func run(progress: @escaping @Sendable (String) -> Void) async throws -> Result {
        let edge = try await Self.startEdge(sessions: sessions)
        return try await edge.stopping {
            progress("load: edge pid \(edge.pid) at \(edge.signalingURL); connecting \(sessions) sessions")

            let logger = Logger(label: "preflight.load", factory: { _ in SwiftLogNoOpLogHandler() })
            let clients = try await withThrowingTaskGroup(of: LoadClient?.self) { group in
                var clients: [LoadClient] = []
                var started = 0
                // Connect at most 50 at a time: a fair ramp, not a SYN flood of the loopback listener.
                for index in 0..<sessions {
                    if started - clients.count >= 50, let client = try await group.next() { client.map { clients.append($0) } }
                    started += 1
                    // One identity per session, as real users: the edge limits sessions per identity.
                    let token = try await edge.token(application: .echo, identity: "load-\(index)")
                    group.addTask { try? await LoadClient.connect(url: edge.signalingURL, token: token, logger: logger) }
                }
                for try await client in group { client.map { clients.append($0) } }
                return clients
            }
            progress("load: \(clients.count) sessions connected; sending for \(duration)")
            let cpuBefore = (edge: edge.cpuSeconds(), generator: Self.ownCPUSeconds())
            let clock = ContinuousClock()
            let start = clock.now
            for client in clients { client.startCounting() }
            // One pacing task sends every session's frame each 20 ms, the sessions spread over ten
            // 2 ms slots as independent clients' packets would be (not all in one burst).
            var slot = 0
            let slots = 10
            while clock.now - start < duration {
                try await Task.sleep(until: start + .milliseconds(2) * slot, clock: clock)
                let frame = slot / slots
                for index in stride(from: slot % slots, to: clients.count, by: slots) { clients[index].sendFrame(frame) }
                slot += 1
            }
            try await Task.sleep(for: .milliseconds(200))  // the last echoes in flight
            let elapsed = (clock.now - start).inSeconds
            let edgeCPU = edge.cpuSeconds().flatMap { after in cpuBefore.edge.map { after - $0 } }
            let generatorCPU = Self.ownCPUSeconds() - cpuBefore.generator
            var latencies: [Double] = []
            var sent = 0
            var echoed = 0
            for client in clients {
                let figures = client.figures()
                sent += figures.sent
                echoed += figures.echoed
                latencies += figures.latencies
            }
            for client in clients { await client.close() }
            return Result(
                sessions: sessions, connected: clients.count, seconds: elapsed, packetsSent: sent, echoesReceived: echoed,
                edgeCPUSeconds: edgeCPU, generatorCPUSeconds: generatorCPU, latencies: latencies)
        }
    }
}

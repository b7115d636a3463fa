import Foundation
import Logging
import NIOCore
import PreflightCore
import PreflightEdge
import PreflightNIO
import PreflightTesting
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

        func percentile(_ p: Double) -> Double {
            guard !latencies.isEmpty else { return .nan }
            let sorted = latencies.sorted()
            return sorted[min(sorted.count - 1, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1 < 0 ? 0 : Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1)]
        }

        var description: String {
            let edgeCPU = edgeCPUSeconds.map { String(format: "%.0f %% of one core", $0 / seconds * 100) } ?? "n/a"
            return """
                sessions        \(connected) of \(sessions) connected
                packets/s       \(String(format: "%.0f", Double(packetsSent) / seconds)) sent to the edge, \(String(format: "%.0f", Double(echoesReceived) / seconds)) echoed back (\(String(format: "%.2f", packetsSent > 0 ? 100 * (1 - Double(echoesReceived) / Double(packetsSent)) : 0)) % not returned)
                edge CPU        \(edgeCPU)
                generator CPU   \(String(format: "%.0f %% of one core", generatorCPUSeconds / seconds * 100))
                echo latency    p50 \(String(format: "%.3f", percentile(50))) ms, p99 \(String(format: "%.3f", percentile(99))) ms, max \(String(format: "%.3f", latencies.max() ?? .nan)) ms (\(latencies.count) echoes)
                """
        }
    }

    func run(progress: @escaping @Sendable (String) -> Void) async throws -> Result {
        let secret = EmbeddedEdge.randomSecret()
        let edge = try ChildEdge.start(secret: secret, maximumSessions: sessions + 10)
        defer { edge.stop() }
        let issuer = try await AccessTokenIssuer(
            apiKeySID: EmbeddedEdge.apiKeySID, apiKeySecret: secret, accountSID: EmbeddedEdge.accountSID)
        let token = try await issuer.mint(identity: "load", outgoingApplicationSID: EmbeddedEdge.applicationSID(.echo))
        progress("load: edge pid \(edge.pid) at \(edge.signalingURL); connecting \(sessions) sessions")

        let logger = Logger(label: "preflight.load", factory: { _ in SwiftLogNoOpLogHandler() })
        let clients = try await withThrowingTaskGroup(of: LoadClient?.self) { group in
            var clients: [LoadClient] = []
            var started = 0
            // Connect at most 50 at a time: a fair ramp, not a SYN flood of the loopback listener.
            for index in 0..<sessions {
                if started - clients.count >= 50, let client = try await group.next() { client.map { clients.append($0) } }
                started += 1
                group.addTask { try? await LoadClient.connect(url: edge.signalingURL, token: token, index: index, logger: logger) }
            }
            for try await client in group { client.map { clients.append($0) } }
            return clients
        }
        progress("load: \(clients.count) sessions connected; sending for \(duration)")
        let cpuBefore = (edge: edge.cpuSeconds(), generator: ChildEdge.ownCPUSeconds())
        let clock = ContinuousClock()
        let start = clock.now
        for client in clients { client.startCounting() }
        // One pacing task sends every session's frame each 20 ms.
        var frame = 0
        while clock.now - start < duration {
            try await Task.sleep(until: start + .milliseconds(20) * frame, clock: clock)
            for client in clients { client.sendFrame(frame) }
            frame += 1
        }
        try await Task.sleep(for: .milliseconds(200))  // the last echoes in flight
        let elapsed = (clock.now - start).inSeconds
        let edgeCPU = edge.cpuSeconds().flatMap { after in cpuBefore.edge.map { after - $0 } }
        let generatorCPU = ChildEdge.ownCPUSeconds() - cpuBefore.generator
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

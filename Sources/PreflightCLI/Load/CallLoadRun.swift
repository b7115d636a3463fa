import Foundation
import Logging
import PreflightCore
import PreflightEdge
import PreflightNIO

/// The call load benchmark behind `preflight load --calls N`: N concurrent two-party calls
/// through one edge process (``EdgeProcess``, so that its CPU is measured apart), each party on
/// the session layer (``CallLoadParty``), both sending 50 PCMU packets a second through the
/// edge's bridge.
struct CallLoadRun {
    let calls: Int
    let duration: Duration
    /// The `preflight` executable that serves the edge.
    var executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    /// Edges already running (`preflight load --edge-url`), instead of one started here.
    var edges: Edges?

    /// Where the calls go: the callers' edge and the callees' (another edge of the same
    /// database for calls across edges), how tokens are made, and whose CPU is measured.
    struct Edges: Sendable {
        var callerURL: String
        var calleeURL: String
        /// The parties' IPv4 address (their host candidates).
        var address: String
        /// A token for `identity`, with the incoming grant when `incoming`.
        var token: @Sendable (_ identity: String, _ incoming: Bool) async throws(PreflightError) -> String
        /// The processes whose CPU time is measured over the media window, by name.
        var processes: [(name: String, pid: Int32)]
    }

    /// The figures a run measured.
    struct Result: CustomStringConvertible {
        var calls: Int
        var connected: Int
        var held: Int
        var seconds: Double
        var packetsSent: Int
        var packetsReceived: Int
        /// Directions (two per call) whose first frame never arrived.
        var firstFramesLost: Int
        /// Each measured edge's CPU seconds over the media window, by name.
        var edgeCPUSeconds: [(name: String, seconds: Double)]
        var generatorCPUSeconds: Double
        var latencies: [Double]
        /// Why calls failed to connect, by message, with their counts.
        var failures: [String: Int]

        /// Packets lost in the bridge, as a percentage of those sent.
        var lossPercent: Double { packetsSent > 0 ? 100 * (1 - Double(packetsReceived) / Double(packetsSent)) : 0 }

        var description: String {
            let latency = DistributionSummary(latencies)
            var lines = [
                "calls           \(connected) of \(calls) connected, \(held) held to the end",
                String(format: "packets/s       %.0f bridged (both directions; %.0f sent)", Double(packetsReceived) / seconds, Double(packetsSent) / seconds),
                String(
                    format: "loss            %.3f %% (%d of %d packets not delivered; %d of them a direction's first frame)", lossPercent,
                    max(0, packetsSent - packetsReceived), packetsSent, firstFramesLost),
                String(format: "bridge latency  p50 %.3f ms, p99 %.3f ms, max %.3f ms (%d packets)", latency.p50, latency.p99, latency.max, latency.count),
            ]
            if edgeCPUSeconds.isEmpty { lines.append("edge CPU        n/a") }
            for (name, cpu) in edgeCPUSeconds {
                // Every packet delivered went through each edge once (its bridge, or its trunk leg).
                let perPacket = packetsReceived > 0 ? cpu / Double(packetsReceived) * 1e6 : 0
                lines.append(String(
                    format: "%@ %.0f %% of one core (%.0f packets per CPU-second, %.1f µs per packet)",
                    (name == "edge" ? "edge CPU" : "\(name) CPU").padding(toLength: 15, withPad: " ", startingAt: 0), cpu / seconds * 100,
                    cpu > 0 ? Double(packetsReceived) / cpu : 0, perPacket))
            }
            lines.append(String(format: "generator CPU   %.0f %% of one core", generatorCPUSeconds / seconds * 100))
            for (message, count) in failures.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }) {
                lines.append("failed          \(count)× \(message)")
            }
            return lines.joined(separator: "\n")
        }
    }

    func run(progress: @escaping @Sendable (String) -> Void) async throws -> Result {
        if let edges { return try await measure(on: edges, progress: progress) }
        let sessionCap = 2 * calls + 10
        let edge = try await EdgeProcess.start(
            executable: executable,
            arguments: [
                // Every party comes from this one address: raise the per-address caps with the count.
                "--max-sessions", "\(sessionCap)", "--max-sessions-per-account", "\(sessionCap)",
                "--max-connections-per-address", "\(sessionCap)", "--max-connections", "\(max(2048, sessionCap))",
                "--log-level", "warning",
            ])
        return try await edge.stopping {
            progress("load: edge pid \(edge.pid) at \(edge.signalingURL)")
            let edges = Edges(
                callerURL: edge.signalingURL, calleeURL: edge.signalingURL, address: "127.0.0.1",
                token: { identity, incoming throws(PreflightError) in try await edge.callToken(identity: identity, incomingAllow: incoming) },
                processes: [("edge", edge.pid)])
            return try await measure(on: edges, progress: progress)
        }
    }

    /// Sets up the calls on `edges`, sends for ``duration`` and measures.
    private func measure(on edges: Edges, progress: @escaping @Sendable (String) -> Void) async throws -> Result {
        progress("load: setting up \(calls) calls (callers on \(edges.callerURL), callees on \(edges.calleeURL))")
        let logger = Logger(label: "preflight.load", factory: { _ in SwiftLogNoOpLogHandler() })
        let origin = ContinuousClock.now
        let (pairs, failures) = try await withThrowingTaskGroup(of: Swift.Result<Pair, PreflightError>.self) { group in
            var pairs: [Pair] = []
            var failures: [String: Int] = [:]
            var started = 0
            var finished = 0
            // Set up at most 25 calls (50 parties) at a time: a fair ramp, not a SYN flood of the listener.
            for index in 0..<calls {
                if started - finished >= 25, let outcome = try await group.next() {
                    finished += 1
                    switch outcome {
                    case .success(let pair): pairs.append(pair)
                    case .failure(let error): failures["error \(error.code.rawValue): \(error.message)", default: 0] += 1
                    }
                }
                started += 1
                // Distinct identities per call, as real users: the edge limits sessions per identity.
                let calleeToken = try await edges.token("callee-\(index)", true)
                let callerToken = try await edges.token("caller-\(index)", false)
                group.addTask {
                    await Self.setUpCall(
                        edges: edges, callee: "callee-\(index)", calleeToken: calleeToken, callerToken: callerToken,
                        origin: origin, logger: logger)
                }
            }
            for try await outcome in group {
                switch outcome {
                case .success(let pair): pairs.append(pair)
                case .failure(let error): failures["error \(error.code.rawValue): \(error.message)", default: 0] += 1
                }
            }
            return (pairs, failures)
        }
        let parties = pairs.flatMap { [$0.caller, $0.callee] }
        progress("load: \(pairs.count) calls connected; sending for \(duration)")
        let cpuBefore = (edges: edges.processes.map { EdgeProcess.cpuSeconds(pid: $0.pid) }, generator: LoadRun.ownCPUSeconds())
        let clock = ContinuousClock()
        let start = clock.now
        for party in parties { party.startCounting() }
        // Pacing tasks (one per lane, so that sending is not bound to one thread) send every
        // party's frame each 20 ms, the parties spread over ten 2 ms slots as independent
        // clients' packets would be (not all in one burst).
        let duration = duration
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<Self.pacingLanes {
                group.addTask {
                    var slot = 0
                    while clock.now - start < duration {
                        try await Task.sleep(until: start + .milliseconds(2) * slot, clock: clock)
                        let frame = slot / Self.slots
                        for index in stride(from: slot % Self.slots + lane * Self.slots, to: parties.count, by: Self.slots * Self.pacingLanes) {
                            parties[index].sendFrame(frame)
                        }
                        slot += 1
                    }
                }
            }
            try await group.waitForAll()
        }
        let sendingEnded = clock.now
        try await Task.sleep(for: .milliseconds(300))  // the last packets in flight
        let elapsed = (sendingEnded - start).inSeconds
        var edgeCPU: [(name: String, seconds: Double)] = []
        for (process, before) in zip(edges.processes, cpuBefore.edges) {
            if let before, let after = EdgeProcess.cpuSeconds(pid: process.pid) { edgeCPU.append((process.name, after - before)) }
        }
        let generatorCPU = LoadRun.ownCPUSeconds() - cpuBefore.generator
        var result = Result(
            calls: calls, connected: pairs.count, held: 0, seconds: elapsed, packetsSent: 0, packetsReceived: 0, firstFramesLost: 0, edgeCPUSeconds: edgeCPU,
            generatorCPUSeconds: generatorCPU, latencies: [], failures: failures)
        for pair in pairs {
            let figures = [pair.caller.figures(), pair.callee.figures()]
            // Held: neither party saw the call end, and both still received media in its last second.
            if figures.allSatisfy({ !$0.ended && ($0.lastArrival.map { sendingEnded - $0 < .seconds(1) } ?? false) }) { result.held += 1 }
            for party in figures {
                if !party.receivedFirstFrame { result.firstFramesLost += 1 }
                result.packetsSent += party.sent
                result.packetsReceived += party.received
                result.latencies += party.latencies
            }
        }
        // Closed together: one after another, 400 closing handshakes take half a minute.
        await withTaskGroup(of: Void.self) { group in
            for party in parties { group.addTask { await party.close() } }
        }
        return result
    }

    /// 2 ms slots per 20 ms frame.
    static let slots = 10
    /// Concurrent pacing tasks.
    static let pacingLanes = 4

    /// A call's two parties, connected.
    typealias Pair = (caller: CallLoadParty, callee: CallLoadParty)

    /// Signs the callee in and registers it, signs the caller in, then places and answers the call.
    private static func setUpCall(
        edges: Edges, callee: String, calleeToken: String, callerToken: String, origin: ContinuousClock.Instant, logger: Logger
    ) async -> Swift.Result<Pair, PreflightError> {
        let calleeParty: CallLoadParty
        do throws(PreflightError) {
            calleeParty = try await step("callee sign-in") { () throws(PreflightError) in
                try await CallLoadParty.signIn(url: edges.calleeURL, token: calleeToken, address: edges.address, origin: origin, logger: logger)
            }
        } catch {
            return .failure(error)
        }
        do throws(PreflightError) {
            try await step("callee register") { () throws(PreflightError) in try await calleeParty.register() }
        } catch {
            await calleeParty.close()
            return .failure(error)
        }
        let answering = Task { () -> Swift.Result<Void, PreflightError> in
            do throws(PreflightError) {
                try await step("callee answer") { () throws(PreflightError) in try await calleeParty.answerNextCall() }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        var callerParty: CallLoadParty?
        var placed = Swift.Result<Void, PreflightError>.failure(PreflightError(code: .calleeUnavailable, message: "caller invite: not placed"))
        // On another edge the callee's registration is routable from the callers' edge tens of
        // ms after it registered (docs/lab.md): a call that finds nobody there yet is placed
        // again by a new caller, each 100 ms for up to 5 s.
        for attempt in 0..<50 {
            if attempt > 0 { try? await Task.sleep(for: .milliseconds(100)) }
            do throws(PreflightError) {
                let party = try await step("caller sign-in") { () throws(PreflightError) in
                    try await CallLoadParty.signIn(url: edges.callerURL, token: callerToken, address: edges.address, origin: origin, logger: logger)
                }
                callerParty = party
                try await step("caller invite") { () throws(PreflightError) in try await party.place(to: "client:\(callee)") }
                placed = .success(())
            } catch {
                placed = .failure(error)
            }
            guard case .failure(let error) = placed, error.code == .calleeUnavailable, edges.calleeURL != edges.callerURL, attempt < 49 else { break }
            await callerParty?.close()
            callerParty = nil
        }
        guard case .success = placed, let callerParty else {
            // Closing the callee's connection ends its wait for the call.
            await calleeParty.close()
            await callerParty?.close()
            _ = await answering.value
            if case .failure(let error) = placed { return .failure(error) }
            return .failure(PreflightError(code: .calleeUnavailable, message: "caller invite: not placed"))
        }
        if case .failure(let error) = await answering.value {
            await calleeParty.close()
            await callerParty.close()
            return .failure(error)
        }
        return .success((callerParty, calleeParty))
    }

    /// `body`, its error's message prefixed with the set-up step it failed in.
    private static func step<T>(_ name: String, _ body: () async throws(PreflightError) -> T) async throws(PreflightError) -> T {
        do {
            return try await body()
        } catch {
            throw PreflightError(code: error.code, message: "\(name): \(error.message)", underlying: error)
        }
    }
}

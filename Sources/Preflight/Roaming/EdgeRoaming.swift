import Foundation
import Logging
import Synchronization
internal import NIOCore
internal import PreflightCore
internal import PreflightNIO

/// Roaming (``EdgeOption/roaming(_:)``): asks every edge's init endpoint where its media port
/// is, pings all of them at once with STUN Binding requests from one UDP socket, and picks the
/// lowest median round-trip time.
enum EdgeRoaming {
    /// The most edges one selection measures.
    static let maximumEdges = 16
    /// Pings per edge, one round every ``interval``.
    static let pings = 5
    static let interval = Duration.milliseconds(40)
    /// How long answers are awaited after the last round.
    static let answerWait = Duration.seconds(1)

    /// Measures `urls` and chooses one.
    /// - Returns: the record for the report, and the chosen edge's signaling URL.
    /// - Throws: ``PreflightError`` `.invalidArgument` for no URL or more than 16, `.noEdgeReachable`
    ///   when no edge could be measured.
    static func select(
        _ urls: [String], accessToken: String, trustedCertificatesFile: String?, timeout: Duration, logger: Logger
    ) async throws(PreflightError) -> (EdgeSelection, String) {
        guard (1...maximumEdges).contains(urls.count) else {
            throw PreflightError(code: .invalidArgument, message: "roaming: give 1 to \(maximumEdges) edges, got \(urls.count)")
        }
        // Where each edge's media port is, all at once.
        let fetched = await withTaskGroup(of: IndexedAnswer.self) { group in
            for (index, url) in urls.enumerated() {
                group.addTask {
                    do throws(PreflightError) {
                        let answer = try await InitClient.fetch(
                            edge: url, accessToken: accessToken, trustedCertificatesFile: trustedCertificatesFile, timeout: timeout)
                        return IndexedAnswer(index: index, answer: .success(answer))
                    } catch {
                        return IndexedAnswer(index: index, answer: .failure(error))
                    }
                }
            }
            var collected: [Int: Result<InitAnswer, PreflightError>] = [:]
            while let next = await group.next() {
                collected[next.index] = next.answer
            }
            return collected
        }
        let answers = urls.indices.map { fetched[$0] }
        var candidates = urls.map { EdgeCandidate(url: $0) }
        var targets: [Int: SocketAddress] = [:]
        for (index, answer) in answers.enumerated() {
            switch answer {
            case .success(let init_)?:
                candidates[index].edge = init_.edge
                if let address = mediaAddress(init_.mediaUrl) {
                    targets[index] = address
                } else {
                    candidates[index].error = ReportError(PreflightError(code: .noEdgeReachable, message: "roaming: the edge gave no media URL"))
                }
            case .failure(let error)?:
                candidates[index].error = ReportError(error)
            case nil:
                break
            }
        }
        if !targets.isEmpty {
            try await ping(targets, into: &candidates)
        }
        guard let chosen = EdgePinger.choose(candidates.map(\.rtt)), case .success(let answer)? = answers[chosen] else {
            let reasons = candidates.map { "\($0.url): \($0.error?.message ?? "no ping answered")" }.joined(separator: "; ")
            throw PreflightError(code: .noEdgeReachable, message: "roaming: no edge could be measured (\(reasons))")
        }
        logger.info(
            "roaming chose an edge",
            metadata: ["edge": "\(answer.edge)", "rtts": "\(candidates.map { $0.rtt.map { String(format: "%.1f", $0) } ?? "-" })"])
        return (EdgeSelection(candidates: candidates, selectedUrl: urls[chosen], selectedEdge: answer.edge), answer.websocketUrl)
    }

    /// `stun:host:port` as a socket address. An edge advertises an address literal; a name is
    /// resolved by the system's resolver (blocking, as the ICE driver's STUN and TURN names are).
    static func mediaAddress(_ url: String?) -> SocketAddress? {
        guard let url, let parsed = try? ICEServerURL(url) else { return nil }
        if let address = try? SocketAddress(ipAddress: parsed.host, port: parsed.port) { return address }
        return try? SocketAddress.makeAddressResolvingHost(parsed.host, port: parsed.port)
    }

    /// Pings every target (from one socket per address family) and records each candidate's figures.
    private static func ping(_ targets: [Int: SocketAddress], into candidates: inout [EdgeCandidate]) async throws(PreflightError) {
        let order = targets.keys.sorted()
        let addresses = order.compactMap { targets[$0] }
        // An IPv4 destination cannot be reached from an IPv6 socket here: a socket per family.
        let v4 = addresses.contains { $0.protocol != .inet6 } ? try await MediaSocket.bind(host: "0.0.0.0") : nil
        let v6: MediaSocket?
        do {
            v6 = addresses.contains { $0.protocol == .inet6 } ? try await MediaSocket.bind(host: "::") : nil
        } catch {
            await v4?.close()
            throw error
        }
        let sockets = [v4, v6].compactMap { $0 }
        var positions: [SocketAddress: Set<Int>] = [:]
        for (position, address) in addresses.enumerated() { positions[address, default: []].insert(position) }
        let sources = positions
        let origin = ContinuousClock.now
        let seconds: @Sendable (ContinuousClock.Instant) -> Double = { instant in
            let elapsed = origin.duration(to: instant).components
            return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        }
        let state = SharedPinger(EdgePinger(edges: addresses.count, pingsPerEdge: pings))
        await withTaskGroup(of: Void.self) { group in
            // Answers, stamped on arrival: until every ping is answered (or the group is cancelled).
            for socket in sockets {
                group.addTask {
                    for await datagram in socket.datagrams {
                        guard let edges = sources[datagram.source] else { continue }
                        let done = state.pinger.withLock { pinger in
                            pinger.receive(Array(datagram.data.readableBytesView), fromAnyOf: edges, at: seconds(datagram.arrival))
                            return pinger.isComplete
                        }
                        if done { return }
                    }
                }
            }
            // The rounds, then the wait for late answers.
            group.addTask {
                for _ in 0..<pings {
                    let round = state.pinger.withLock { $0.nextRound(at: seconds(.now)) }
                    for ping in round where addresses.indices.contains(ping.edge) {
                        let address = addresses[ping.edge]
                        (address.protocol == .inet6 ? v6 : v4)?.send(ping.bytes, to: address)
                    }
                    try? await Task.sleep(for: interval)
                }
                try? await Task.sleep(for: answerWait)
            }
            await group.next()
            group.cancelAll()
        }
        for socket in sockets { await socket.close() }
        let measured = state.pinger.withLock { $0 }
        for (position, index) in order.enumerated() {
            candidates[index].rtt = measured.medianRTT(position)
            candidates[index].pingsSent = measured.sent(position)
            candidates[index].pingsAnswered = measured.answered(position)
        }
    }
}

/// The pinger shared by the sending and the receiving task.
private final class SharedPinger: Sendable {
    let pinger: Mutex<EdgePinger>
    init(_ pinger: EdgePinger) { self.pinger = Mutex(pinger) }
}

/// One edge's init answer, by its place in the list.
private struct IndexedAnswer: Sendable {
    var index: Int
    var answer: Result<InitAnswer, PreflightError>
}

import PreflightCore
import Synchronization

#if os(Linux)
    import Glibc
#endif

/// What a path diagnosis's probing gave: each hop's observations and the counts, or why it could
/// not probe (71001). A cancelled probing returns what it saw so far.
public struct PathProbeOutcome: Sendable {
    /// The address probed, `host:port`.
    public var destination: String
    /// What each TTL's probes saw, TTL 1 first.
    public var hops: [PathProber.HopObservation] = []
    /// Probes sent.
    public var probesSent = 0
    /// Answers received in time.
    public var answersReceived = 0
    /// Why it could not probe (71001).
    public var error: PreflightError?
}

/// The driver of ``PathProber``: one socket and one wait, on a thread of its own
/// (``BlockingWork``) for the length of the probing. Linux only for now (`IP_RECVERR`); other
/// platforms get 71001.
public enum PathProbing {
    /// Probes the path to `host`:`port` as `configuration` says, until done or cancelled.
    /// `focus` picks the hops the rounds visit (``PathProber``).
    public static func run(
        host: String, port: UInt16, configuration: PathProber.Configuration,
        focus: @escaping @Sendable ([PathProber.HopObservation]) -> [Int] = { $0.map(\.ttl) }
    ) async -> PathProbeOutcome {
        guard let address = TransportAddress(host: host, port: port) else {
            return PathProbeOutcome(
                destination: "\(host.prefix(64)):\(port)",
                error: PreflightError(code: .pathDiagnosisUnavailable, message: "path probe: not an address: \(host.prefix(64))"))
        }
        let destination = address.description
        #if os(Linux)
            let socket: PathProbeSocket
            do {
                socket = try PathProbeSocket(destination: address)
            } catch {
                return PathProbeOutcome(destination: destination, error: error)
            }
            let stop = StopFlag()
            let outcome = await BlockingWork.run("preflight-path", onCancel: { stop.flag.store(true, ordering: .relaxed) }) {
                () -> PathProbeOutcome in
                defer { socket.close() }
                return probe(socket, host: host, destination: destination, prober: PathProber(configuration: configuration, focus: focus), stop: stop)
            }
            return outcome
        #else
            return PathProbeOutcome(
                destination: destination,
                error: PreflightError(code: .pathDiagnosisUnavailable, message: "path probing needs Linux's IP_RECVERR; this platform has no backend yet"))
        #endif
    }

    /// A stop flag the cancellation handler and the probing thread share.
    final class StopFlag: Sendable {
        let flag = Atomic<Bool>(false)
    }

    #if os(Linux)
        static func probe(
            _ socket: PathProbeSocket, host: String, destination: String, prober: PathProber, stop: StopFlag
        ) -> PathProbeOutcome {
            let clock = ContinuousClock()
            let origin = clock.now
            func now() -> Double {
                let elapsed = clock.now - origin
                return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            }
            var prober = prober
            while !stop.flag.load(ordering: .relaxed) {
                let time = now()
                while let probe = prober.poll(now: time) {
                    let request = STUNMessage(type: STUNMessageType(method: .binding, class: .request), transactionID: probe.transactionID, attributes: [])
                    if let bytes = try? request.encoded() { _ = socket.send(bytes, ttl: probe.ttl) }
                }
                guard let deadline = prober.nextDeadline(now: now()) else { break }
                // At most 100 ms at a time, so that a cancellation is seen soon.
                socket.wait(milliseconds: Int32(max(0, min(100, ((deadline - now()) * 1000).rounded(.up)))))
                drain(socket, into: &prober, host: host, at: now())
            }
            return PathProbeOutcome(
                destination: destination, hops: prober.hops, probesSent: prober.probesSent, answersReceived: prober.answersReceived)
        }

        /// Reads every error and datagram waiting (at most 256 at a time).
        static func drain(_ socket: PathProbeSocket, into prober: inout PathProber, host: String, at time: Double) {
            for _ in 0..<256 {
                var progressed = false
                while let entry = socket.readError() {
                    progressed = true
                    guard let report = entry else { continue }
                    switch report.kind {
                    case .timeExceeded:
                        prober.answered(report.transactionID, kind: .timeExceeded, from: report.offender, at: time)
                    case .unreachable:
                        prober.answered(report.transactionID, kind: report.offender == host ? .destination : .unreachable, from: report.offender, at: time)
                    case .other:
                        break
                    }
                }
                if let datagram = socket.readDatagram() {
                    progressed = true
                    if let message = try? STUNMessage(decoding: datagram),
                        message.type == STUNMessageType(method: .binding, class: .successResponse)
                    {
                        prober.answered(message.transactionID, kind: .destination, from: host, at: time)
                    }
                } else if errno != EAGAIN, errno != EWOULDBLOCK {
                    // A pending error failed the read (and is cleared); the queue has it.
                    progressed = true
                }
                if !progressed { return }
            }
        }
    #endif
}

import PreflightCore
import Synchronization

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

/// The driver of ``PathProber``: one probe socket and one wait, on a thread of its own
/// (``BlockingWork``) for the length of the probing. The socket is Linux's `IP_RECVERR` one or
/// Apple platforms' pair (a UDP socket and an ICMP datagram socket); elsewhere 71001.
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
        #if os(Linux) || canImport(Darwin)
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
                error: PreflightError(
                    code: .pathDiagnosisUnavailable, message: "path probing needs Linux's IP_RECVERR or an ICMP datagram socket; this platform has neither"))
        #endif
    }

    /// A stop flag the cancellation handler and the probing thread share.
    final class StopFlag: Sendable {
        let flag = Atomic<Bool>(false)
    }

    #if os(Linux) || canImport(Darwin)
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
                let at = now()
                for answer in socket.answers(host: host) {
                    prober.answered(answer.transactionID, kind: answer.kind, from: answer.from, at: at)
                }
            }
            return PathProbeOutcome(
                destination: destination, hops: prober.hops, probesSent: prober.probesSent, answersReceived: prober.answersReceived)
        }
    #endif
}

/// One answer a probe socket read: a router's ICMP error, or the destination's (its STUN answer,
/// or its port unreachable).
struct PathProbeAnswer: Sendable {
    var transactionID: STUNTransactionID?
    var kind: PathProber.AnswerKind
    var from: String

    init(transactionID: STUNTransactionID?, kind: PathProber.AnswerKind, from: String) {
        self.transactionID = transactionID
        self.kind = kind
        self.from = from
    }

    /// The answer an ICMP error of `kind` from `from` gives: a router's time exceeded, or an
    /// unreachable (the destination's when `from` is `host`, the end of the path otherwise);
    /// `nil` for any other error.
    init?(_ kind: ICMPErrorReport.Kind, transactionID: STUNTransactionID?, from: String, host: String) {
        switch kind {
        case .timeExceeded: self.init(transactionID: transactionID, kind: .timeExceeded, from: from)
        case .unreachable: self.init(transactionID: transactionID, kind: from == host ? .destination : .unreachable, from: from)
        case .other: return nil
        }
    }

    /// The destination's answer in `datagram`: a STUN Binding success response; `nil` otherwise.
    init?(stun datagram: [UInt8], from host: String) {
        guard let message = try? STUNMessage(decoding: datagram),
            message.type == STUNMessageType(method: .binding, class: .successResponse)
        else { return nil }
        self.init(transactionID: message.transactionID, kind: .destination, from: host)
    }
}

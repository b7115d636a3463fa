import Foundation

/// The verdict of a path diagnosis, a pure value: from the probes' observations of each hop
/// (``PathProber``) and the test's own measurement of the destination, the path's segments, a
/// note on each odd hop and the segment to blame. This comment is the specification.
///
/// **Segments.** Hop 1 is the local network, named by its network type ("your Wi-Fi"). The hops
/// after it with a private address (``IPNetwork/privateBlocks`` and
/// ``Configuration/privateNetworks``) are the home or office network; from the first public hop,
/// ``Configuration/accessHops`` hops (2) are the internet provider's access network; the rest,
/// with the destination, are the way to the edge. A hop that never answered belongs where the
/// hop before it does (and counts as an access hop there). The link into a hop belongs to the
/// hop's segment: loss on the link from the device to its router is the local network's.
///
/// **Loss** is looked at when the test lost at least ``Configuration/lossTrigger`` (1 %) of its
/// packets in either direction. If it starts on the link into hop k and persists to the
/// destination, a probe to a hop at or after k (which crosses that link twice) is lost with
/// q = 1 − (1 − up)(1 − down), the test's own loss each way, and a probe to a hop before k with
/// the baseline ``Configuration/baselineLoss`` (0.5 %). A router may also drop its own answers
/// (it rate-limits ICMP): with prior probability ``Configuration/rateLimitPrior`` (20 %) a hop
/// answers only a share of what reaches it, uniform in 0–1. Each start k (hops 1 to the
/// destination; before the probes each segment equally likely, and each hop within it) gets the
/// likelihood of every hop's answers under that mixture; a segment's probability is the sum of its hops'. The segment with at
/// least ``Configuration/confidence`` (95 %) is blamed, with the test's loss (the worse
/// direction) as its value; otherwise the likeliest is a suspect, shown and never blamed. A hop
/// that loses its own answers while the path goes on through it is therefore never blamed: only
/// loss that persists to the destination is, and only where the hops before it are clean.
///
/// **Jitter** is looked at when the test's jitter (the destination's) is at least
/// ``Configuration/jitterTrigger`` (5 ms) in either direction. A hop's variation is the mean
/// difference of successive round trips of its answers, read when it has at least 3. The jitter
/// starts at the first hop from which every later hop with 3 answers varies by at least the
/// trigger (the destination, when none before it does); it is blamed when every hop before it
/// with 3 answers varies by less than half the trigger. Otherwise the answers of the hops just
/// before it already vary (by half the trigger or more: a clean hop's vary by a fraction of a
/// millisecond), so the jitter likelier starts at the first of them, and that hop is a suspect
/// (confidence 0.5).
///
/// **Delay** is looked at when the destination's lowest round trip is at least
/// ``Configuration/delayTrigger`` (300 ms). It starts at the first hop whose lowest round trip
/// exceeds the previous answering hop's by half the destination's, every later hop's lowest
/// being at least that hop's less 10 ms; blamed when found.
///
/// **Notes.** The destination is marked so. A hop that never answered is marked
/// ``PathHopNote/noAnswer``. A hop whose answers are lost at least 25 points more often than
/// those of some later hop (and at least 2 of them), or whose median round trip exceeds some later
/// hop's by 10 ms or more, is marked ``PathHopNote/rateLimitsReplies``: it limits or delays its own
/// ICMP, which is not a problem for a call.
public struct PathVerdict: Sendable {
    /// The rules' figures (the defaults are the specification's).
    public struct Configuration: Sendable, Hashable {
        /// The probability a segment needs to be blamed: 0.95.
        public var confidence = 0.95
        /// The test's loss, either way, from which loss is looked at: 0.01.
        public var lossTrigger = 0.01
        /// A probe's loss before the problem starts: 0.005.
        public var baselineLoss = 0.005
        /// The prior probability that a router limits its answers: 0.2.
        public var rateLimitPrior = 0.2
        /// The jitter, ms, from which jitter is looked at and a hop counts as varying: 5.
        public var jitterTrigger = 5.0
        /// The destination's lowest round trip, ms, from which delay is looked at: 300.
        public var delayTrigger = 300.0
        /// The public hops counted as the access network: 2.
        public var accessHops = 2
        /// Blocks counted as private besides RFC 1918's (an office numbered from public space).
        public var privateNetworks: [IPNetwork] = []

        /// The specification's figures.
        public init() {}
    }

    /// The test's own measurement of the destination.
    public struct Destination: Sendable, Hashable {
        /// Loss on the way to the edge, 0–1.
        public var lossUp: Double
        /// Loss on the way back, 0–1.
        public var lossDown: Double
        /// Jitter, the worse direction, ms.
        public var jitter: Double
        /// The test's packets, sent each way.
        public var packets: Int

        /// Creates the figures.
        public init(lossUp: Double, lossDown: Double, jitter: Double, packets: Int) {
            self.lossUp = lossUp
            self.lossDown = lossDown
            self.jitter = jitter
            self.packets = packets
        }
    }

    /// The rules' figures.
    public var configuration: Configuration

    /// Creates a verdict with `configuration`.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The diagnosis of `hops` (TTL 1 first) toward `destinationAddress`.
    public func diagnose(
        hops observations: [PathProber.HopObservation], destinationAddress: String, destination: Destination,
        localNetwork: NetworkType?, probesSent: Int, answersReceived: Int
    ) -> PathDiagnosis {
        let kinds = segmentKinds(observations)
        var hops = zip(observations, kinds).map { Self.hop($0, segment: $1) }
        let reachedDestination = observations.last?.reachedDestination == true
        if reachedDestination, !hops.isEmpty { hops[hops.count - 1].note = .destination }
        markRateLimiting(&hops)
        let segments = Self.segments(hops, localNetwork: localNetwork)
        var blames: [PathBlame] = []
        var suspects: [PathBlame] = []
        if let loss = placeLoss(observations, kinds: kinds, destination: destination) {
            (loss.confidence >= configuration.confidence ? { blames.append(loss) } : { suspects.append(loss) })()
        }
        if let jitter = placeJitter(hops, destination: destination) {
            (jitter.confidence >= configuration.confidence ? { blames.append(jitter) } : { suspects.append(jitter) })()
        }
        if let delay = placeDelay(hops) { blames.append(delay) }
        var diagnosis = PathDiagnosis(
            destination: destinationAddress, hops: hops, segments: segments, blames: blames, suspects: suspects,
            probesSent: probesSent, answersReceived: answersReceived, testPackets: destination.packets)
        diagnosis.summary = Self.summary(diagnosis, destination: destination, reached: reachedDestination)
        return diagnosis
    }

    // MARK: Segments

    /// The hops worth probing after discovery, the most telling first: the last answering hop of
    /// each segment but the destination's (whose loss and jitter the test itself measures), where
    /// a problem's segment is decided; then every other answering hop before the destination, each
    /// a router of its own whose answers add to its segment's evidence; the last hop of the path
    /// when the destination did not answer. The prober keeps as many of them, in this order, as
    /// its budget can ask at its pace.
    public func focusHops(_ hops: [PathProber.HopObservation]) -> [Int] {
        let kinds = segmentKinds(hops)
        let reached = hops.last?.reachedDestination == true
        let candidates = hops.indices.filter { !(reached && $0 == hops.count - 1) }
        var picked: [Int] = []
        for kind in PathSegmentKind.allCases {
            let members = candidates.filter { kinds[$0] == kind }
            guard let last = members.last else { continue }
            picked.append((members.last { hops[$0].address != nil } ?? last) + 1)
        }
        if !reached, let last = hops.last?.ttl, !picked.contains(last) { picked.append(last) }
        for index in candidates where hops[index].address != nil && !picked.contains(index + 1) { picked.append(index + 1) }
        return picked
    }

    /// The segment of each hop, by the rules above.
    public func segmentKinds(_ hops: [PathProber.HopObservation]) -> [PathSegmentKind] {
        var kinds: [PathSegmentKind] = []
        var accessSeen = 0
        for (index, hop) in hops.enumerated() {
            let kind: PathSegmentKind
            if index == 0 {
                kind = .localNetwork
            } else if index == hops.count - 1, hop.reachedDestination {
                kind = .pathToEdge
            } else if let address = hop.address {
                if accessSeen == 0, isPrivate(address) {
                    kind = .homeNetwork
                } else if accessSeen < configuration.accessHops {
                    kind = .accessNetwork
                    accessSeen += 1
                } else {
                    kind = .pathToEdge
                }
            } else {
                let before = kinds.last ?? .localNetwork
                if before == .accessNetwork, accessSeen < configuration.accessHops {
                    kind = .accessNetwork
                    accessSeen += 1
                } else {
                    kind = before == .localNetwork ? .homeNetwork : before
                }
            }
            kinds.append(kind)
        }
        return kinds
    }

    func isPrivate(_ address: String) -> Bool {
        (IPNetwork.privateBlocks + configuration.privateNetworks).contains { $0.contains(address) }
    }

    static func segments(_ hops: [PathHop], localNetwork: NetworkType?) -> [PathSegment] {
        var segments: [PathSegment] = []
        for hop in hops {
            if let last = segments.last, last.kind == hop.segment {
                segments[segments.count - 1].lastHop = hop.ttl
            } else {
                segments.append(PathSegment(kind: hop.segment, name: name(hop.segment, localNetwork: localNetwork), firstHop: hop.ttl, lastHop: hop.ttl))
            }
        }
        return segments
    }

    /// The segment's name for people.
    public static func name(_ kind: PathSegmentKind, localNetwork: NetworkType?) -> String {
        switch kind {
        case .localNetwork:
            switch localNetwork {
            case .wifi?: "your Wi-Fi"
            case .ethernet?: "your Ethernet network"
            case .cellular?: "your cellular network"
            case .vpn?: "your VPN"
            default: "your local network"
            }
        case .homeNetwork: "your home or office network"
        case .accessNetwork: "your internet provider's access network"
        case .pathToEdge: "the way to the edge"
        }
    }

    // MARK: Hops

    static func hop(_ observation: PathProber.HopObservation, segment: PathSegmentKind) -> PathHop {
        let rtts = observation.roundTrips.map { $0 * 1000 }
        let sorted = rtts.sorted()
        let lost = observation.sent - rtts.count
        return PathHop(
            ttl: observation.ttl, address: observation.address, segment: segment, sent: observation.sent, received: rtts.count,
            lossPercent: observation.sent > 0 ? Double(max(0, lost)) / Double(observation.sent) * 100 : 0,
            rttMin: sorted.first,
            rttMedian: sorted.isEmpty ? nil : DistributionSummary.nearestRankPercentile(50, ofSorted: sorted),
            rttP95: sorted.isEmpty ? nil : DistributionSummary.nearestRankPercentile(95, ofSorted: sorted),
            jitter: variation(rtts), note: observation.address == nil ? .noAnswer : nil)
    }

    /// The mean absolute difference of successive values; `nil` below 2.
    static func variation(_ values: [Double]) -> Double? {
        guard values.count >= 2 else { return nil }
        return zip(values, values.dropFirst()).map { abs($1 - $0) }.reduce(0, +) / Double(values.count - 1)
    }

    func markRateLimiting(_ hops: inout [PathHop]) {
        for index in hops.indices where hops[index].note == nil && hops[index].received > 0 {
            let later = hops[(index + 1)...].filter { $0.received > 0 }
            let lost = hops[index].sent - hops[index].received
            let losesOwn = lost >= 2 && later.contains { hops[index].lossPercent - $0.lossPercent >= 25 }
            let slowOwn = later.contains { other in
                guard let mine = hops[index].rttMedian, let theirs = other.rttMedian else { return false }
                return mine - theirs >= 10
            }
            if losesOwn || slowOwn { hops[index].note = .rateLimitsReplies }
        }
    }

    // MARK: Loss

    func placeLoss(_ hops: [PathProber.HopObservation], kinds: [PathSegmentKind], destination: Destination) -> PathBlame? {
        let worse = max(destination.lossUp, destination.lossDown)
        guard worse >= configuration.lossTrigger, !hops.isEmpty else { return nil }
        let q = min(0.999, 1 - (1 - destination.lossUp) * (1 - destination.lossDown))
        let pass = 1 - configuration.baselineLoss
        guard q > configuration.baselineLoss else { return nil }
        // log P(answers of hop h | path success π), for both π: before and after the start.
        let clean = hops.map { logLikelihood(answered: $0.roundTrips.count, sent: $0.sent, pass: pass) }
        let lossy = hops.map { logLikelihood(answered: $0.roundTrips.count, sent: $0.sent, pass: 1 - q) }
        // Start k (index): hops before it clean, from it lossy. Each segment is as likely as
        // another before the probes, and each of its hops as likely as another.
        let segmentCount = Double(Set(kinds).count)
        var logs: [Double] = []
        for k in hops.indices {
            let prior = -log(segmentCount * Double(kinds.filter { $0 == kinds[k] }.count))
            logs.append(prior + clean[..<k].reduce(0, +) + lossy[k...].reduce(0, +))
        }
        let top = logs.max() ?? 0
        let weights = logs.map { exp($0 - top) }
        let total = weights.reduce(0, +)
        var bySegment: [PathSegmentKind: Double] = [:]
        for (index, weight) in weights.enumerated() { bySegment[kinds[index], default: 0] += weight / total }
        guard let best = bySegment.max(by: { $0.value < $1.value || ($0.value == $1.value && order($0.key) > order($1.key)) }) else { return nil }
        let start = kinds.indices.filter { kinds[$0] == best.key }.max { weights[$0] < weights[$1] } ?? 0
        return PathBlame(problem: .loss, segment: best.key, startsAtHop: start + 1, value: worse * 100, confidence: best.value)
    }

    private func order(_ kind: PathSegmentKind) -> Int { PathSegmentKind.allCases.firstIndex(of: kind) ?? 0 }

    /// log of P(`answered` of `sent` | each probe reaches the hop and back with `pass`), up to the
    /// binomial coefficient: a router answering all with 1 − ρ, a share r uniform in 0–1 with ρ.
    public func logLikelihood(answered: Int, sent: Int, pass: Double) -> Double {
        guard sent > 0 else { return 0 }
        let s = Double(answered), n = Double(sent)
        func logF(_ x: Double) -> Double {
            let x = min(max(x, 1e-12), 1 - 1e-12)
            return s * log(x) + (n - s) * log(1 - x)
        }
        let full = logF(pass)
        // (1/π) ∫₀^π f(x) dx by the midpoint rule, in logs.
        let steps = 200
        var terms: [Double] = []
        for i in 0..<steps { terms.append(logF(pass * (Double(i) + 0.5) / Double(steps))) }
        let peak = max(terms.max() ?? full, full)
        let limited = terms.map { exp($0 - peak) }.reduce(0, +) / Double(steps)
        let mixture = (1 - configuration.rateLimitPrior) * exp(full - peak) + configuration.rateLimitPrior * limited
        return peak + log(mixture)
    }

    // MARK: Jitter and delay

    func placeJitter(_ hops: [PathHop], destination: Destination) -> PathBlame? {
        guard destination.jitter >= configuration.jitterTrigger, let last = hops.last else { return nil }
        let trigger = configuration.jitterTrigger
        // The destination is jittery by the test's own measure; the hops before it by their probes'.
        let measured = hops.dropLast().filter { $0.received >= 3 && $0.jitter != nil }
        var start = last
        for hop in measured.reversed() {
            guard let jitter = hop.jitter, jitter >= trigger else { break }
            start = hop
        }
        let before = measured.filter { $0.ttl < start.ttl }
        if before.allSatisfy({ ($0.jitter ?? 0) < trigger / 2 }) {
            return PathBlame(problem: .jitter, segment: start.segment, startsAtHop: start.ttl, value: destination.jitter, confidence: 1)
        }
        var likeliest = start
        for hop in before.reversed() {
            guard let jitter = hop.jitter, jitter >= trigger / 2 else { break }
            likeliest = hop
        }
        return PathBlame(problem: .jitter, segment: likeliest.segment, startsAtHop: likeliest.ttl, value: destination.jitter, confidence: 0.5)
    }

    func placeDelay(_ hops: [PathHop]) -> PathBlame? {
        let answering = hops.filter { $0.rttMin != nil }
        guard let last = answering.last?.rttMin, last >= configuration.delayTrigger else { return nil }
        var previous = 0.0
        for (index, hop) in answering.enumerated() {
            guard let low = hop.rttMin else { continue }
            if low - previous >= last / 2, answering[index...].allSatisfy({ ($0.rttMin ?? 0) >= low - 10 }) {
                return PathBlame(problem: .delay, segment: hop.segment, startsAtHop: hop.ttl, value: low - previous, confidence: 1)
            }
            previous = max(previous, low)
        }
        return nil
    }

    // MARK: Words

    static func summary(_ diagnosis: PathDiagnosis, destination: Destination, reached: Bool) -> String {
        var lines: [String] = []
        func place(_ blame: PathBlame) -> String {
            let segment = diagnosis.segments.first { $0.kind == blame.segment }?.name ?? blame.segment.rawValue
            let hop = diagnosis.hops.first { $0.ttl == blame.startsAtHop }
            let at = hop?.address.map { " (seen from hop \(blame.startsAtHop), \($0))" } ?? " (seen from hop \(blame.startsAtHop))"
            return "\(segment)\(at)"
        }
        for blame in diagnosis.blames {
            switch blame.problem {
            case .loss: lines.append("The loss (\(fixed(blame.value)) % of the test's packets) starts in \(place(blame)) and goes on to the edge.")
            case .jitter: lines.append("The jitter (\(fixed(blame.value)) ms) starts in \(place(blame)) and goes on to the edge.")
            case .delay: lines.append("\(place(blame).prefix(1).uppercased() + place(blame).dropFirst()) adds \(fixed(blame.value)) ms to the round trip.")
            }
        }
        for suspect in diagnosis.suspects {
            let what = suspect.problem == .loss ? "lost \(fixed(suspect.value)) % of its packets" : "saw \(fixed(suspect.value)) ms of \(suspect.problem.rawValue)"
            lines.append(
                "The test \(what), but the probes could not place it with confidence: likeliest \(place(suspect)), "
                    + "\(Int((suspect.confidence * 100).rounded())) % (a longer test asks the routers more often).")
        }
        if diagnosis.blames.isEmpty, diagnosis.suspects.isEmpty {
            lines.append(
                reached
                    ? "No loss, jitter or delay to worry a call on the \(diagnosis.hops.count) hop\(diagnosis.hops.count == 1 ? "" : "s") to the edge."
                    : "No loss, jitter or delay to worry a call; the edge's address did not answer the probes after hop \(diagnosis.hops.last { $0.received > 0 }?.ttl ?? 0).")
        }
        for hop in diagnosis.hops {
            switch hop.note {
            case .rateLimitsReplies?:
                lines.append("Hop \(hop.ttl) (\(hop.address ?? "?")) limits or delays its own replies (\(fixed(hop.lossPercent)) % unanswered): not a problem for calls.")
            case .noAnswer?:
                lines.append("Hop \(hop.ttl) never answers; the path goes on through it.")
            default: break
            }
        }
        return lines.joined(separator: " ")
    }

    private static func fixed(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
    }
}

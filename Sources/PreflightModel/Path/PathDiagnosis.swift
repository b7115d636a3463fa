/// Where on the way to the edge a problem is (the report's added `pathDiagnosis`): the hops
/// between the device and the edge's media address, grouped into segments (your Wi-Fi, your home
/// or office network, your internet provider's access network, the way to the edge), with the
/// segment to blame when the test saw loss, jitter or delay, in plain words.
///
/// Computed by `PathVerdict` (PreflightCore) from the probes' answers and the test's own
/// measurement of the destination; docs/measurement.md, "Path diagnosis", says how.
public struct PathDiagnosis: Sendable, Hashable, Codable {
    /// The address probed: the edge's media address, `host:port`.
    public var destination: String
    /// Each hop by its distance (TTL 1 first), up to the destination or the last one probed.
    public var hops: [PathHop]
    /// The segments in order from the device; a segment with no hop is left out.
    public var segments: [PathSegment]
    /// What is blamed, the worst first; empty when nothing is.
    public var blames: [PathBlame]
    /// Problems the test saw at the destination that the probes could not place with the
    /// verdict's confidence: the likeliest segment and how likely; shown, never blamed.
    public var suspects: [PathBlame]
    /// The verdict in plain words ("The loss starts in your Wi-Fi: …").
    public var summary: String
    /// Probes sent.
    public var probesSent: Int
    /// Answers received in time (ICMP errors and the edge's).
    public var answersReceived: Int
    /// The test's own media packets, sent each way (lost ones included), that the probes are a share of.
    public var testPackets: Int
    /// Why the diagnosis could not probe (71001), when it could not; the test itself goes on.
    public var error: ReportError?

    /// Creates a diagnosis.
    public init(
        destination: String, hops: [PathHop] = [], segments: [PathSegment] = [], blames: [PathBlame] = [], suspects: [PathBlame] = [], summary: String = "",
        probesSent: Int = 0, answersReceived: Int = 0, testPackets: Int = 0, error: ReportError? = nil
    ) {
        self.destination = destination
        self.hops = hops
        self.segments = segments
        self.blames = blames
        self.suspects = suspects
        self.summary = summary
        self.probesSent = probesSent
        self.answersReceived = answersReceived
        self.testPackets = testPackets
        self.error = error
    }

    /// The probes as a share of the test's packets, in percent (`nil` before any test packet).
    public var probeSharePercent: Double? {
        testPackets > 0 ? Double(probesSent) / Double(testPackets) * 100 : nil
    }
}

/// One hop of the path: who answered probes with this TTL, and how.
public struct PathHop: Sendable, Hashable, Codable {
    /// The TTL (hop limit) of its probes: 1 is the first router.
    public var ttl: Int
    /// The address that answered (the router's, or the edge's); `nil` when nothing ever did.
    public var address: String?
    /// The segment it belongs to.
    public var segment: PathSegmentKind
    /// Probes sent with this TTL.
    public var sent: Int
    /// Answers received in time.
    public var received: Int
    /// Probes without an answer, in percent of those sent.
    public var lossPercent: Double
    /// The lowest round trip of its answers, ms.
    public var rttMin: Double?
    /// Their median, ms.
    public var rttMedian: Double?
    /// Their 95th percentile (nearest rank), ms.
    public var rttP95: Double?
    /// The mean difference of successive round-trip times (RFC 3550's jitter without smoothing), ms.
    public var jitter: Double?
    /// What the verdict says of it: the destination, a hop that rate-limits its answers, one that
    /// never answers; `nil` for an ordinary hop.
    public var note: PathHopNote?

    /// Creates a hop.
    public init(
        ttl: Int, address: String?, segment: PathSegmentKind, sent: Int, received: Int, lossPercent: Double,
        rttMin: Double? = nil, rttMedian: Double? = nil, rttP95: Double? = nil, jitter: Double? = nil, note: PathHopNote? = nil
    ) {
        self.ttl = ttl
        self.address = address
        self.segment = segment
        self.sent = sent
        self.received = received
        self.lossPercent = lossPercent
        self.rttMin = rttMin
        self.rttMedian = rttMedian
        self.rttP95 = rttP95
        self.jitter = jitter
        self.note = note
    }
}

/// What the verdict says of one hop.
public enum PathHopNote: String, Sendable, Hashable, Codable {
    /// The edge: its answers are the destination's.
    case destination
    /// Its own answers are lost or slow while hops after it are clean: it limits the rate of its
    /// ICMP replies, which is not a problem for a call.
    case rateLimitsReplies = "rate-limits-replies"
    /// It never answered (it sends no ICMP, or a firewall drops it); the path goes on through it.
    case noAnswer = "no-answer"
}

/// The parts of a path, in order from the device.
public enum PathSegmentKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// The first hop: the device's own network (Wi-Fi, Ethernet, cellular).
    case localNetwork = "local-network"
    /// Further hops with private addresses: a home or office network behind its router.
    case homeNetwork = "home-network"
    /// The first public hops: the internet provider's access network.
    case accessNetwork = "access-network"
    /// The rest, up to and including the edge.
    case pathToEdge = "path-to-edge"
}

/// One segment: its hops and its name for people.
public struct PathSegment: Sendable, Hashable, Codable {
    /// Which segment.
    public var kind: PathSegmentKind
    /// "your Wi-Fi", "your home or office network", "your internet provider", "the way to the edge".
    public var name: String
    /// Its first hop (TTL).
    public var firstHop: Int
    /// Its last hop (TTL).
    public var lastHop: Int

    /// Creates a segment.
    public init(kind: PathSegmentKind, name: String, firstHop: Int, lastHop: Int) {
        self.kind = kind
        self.name = name
        self.firstHop = firstHop
        self.lastHop = lastHop
    }
}

/// A problem placed on a segment.
public struct PathBlame: Sendable, Hashable, Codable {
    /// What the problem is.
    public enum Problem: String, Sendable, Hashable, Codable {
        /// Packets lost.
        case loss
        /// Delay varying.
        case jitter
        /// Delay added.
        case delay
    }

    /// What the problem is.
    public var problem: Problem
    /// The segment it starts in.
    public var segment: PathSegmentKind
    /// The first hop (TTL) that shows it: the link into it, or into an earlier hop of the same
    /// segment that was not probed as often, carries it.
    public var startsAtHop: Int
    /// How big: loss in percent of the test's packets (the worse direction), jitter or added
    /// delay in ms.
    public var value: Double
    /// How sure the verdict is that it starts in this segment, 0–1.
    public var confidence: Double

    /// Creates a blame.
    public init(problem: Problem, segment: PathSegmentKind, startsAtHop: Int, value: Double, confidence: Double) {
        self.problem = problem
        self.segment = segment
        self.startsAtHop = startsAtHop
        self.value = value
        self.confidence = confidence
    }
}

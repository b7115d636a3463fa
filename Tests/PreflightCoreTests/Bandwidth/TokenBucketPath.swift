import PreflightCore

/// A simulated bottleneck shaped like Linux tbf: a token bucket of `burst` bytes filled at `rate`
/// bits per second, a FIFO that holds a packet at most `latency` seconds (tail drop past it), a
/// fixed one-way delay after it, and random loss at the receiver (the lab's nftables drop). The
/// line before the bucket is infinitely fast, so a full bucket lets its burst through at once, as
/// tbf does. Deterministic: loss comes from a seeded generator.
struct TokenBucketPath {
    let rate: Double
    let burst: Double
    var latency = 0.1
    var delay = 0.010
    var loss = 0.0
    var jitter = 0.0
    /// A receiver stall (a busy host): what arrives within it is read at its end.
    var stall: (at: Double, length: Double)?
    private var tokens: Double
    private var clock = 0.0
    private var lastDeparture = 0.0
    private var random: SplitMix64

    init(rate: Double, burst: Double, delay: Double = 0.010, loss: Double = 0, jitter: Double = 0, seed: UInt64 = 1) {
        self.rate = rate
        self.burst = burst
        self.delay = delay
        self.loss = loss
        self.jitter = jitter
        tokens = burst
        random = SplitMix64(seed: seed)
    }

    /// The arrival time of a packet of `bytes` (wire) sent at `time`, or `nil` when it is dropped.
    mutating func send(bytes: Int, at time: Double) -> Double? {
        let start = max(time, lastDeparture)
        var available = min(burst, tokens + (start - clock) * rate / 8)
        let departure: Double
        if available >= Double(bytes) {
            departure = start
            available -= Double(bytes)
        } else {
            departure = start + (Double(bytes) - available) / (rate / 8)
            available = 0
        }
        guard departure - time <= latency else { return nil }  // the queue is full: tail drop
        tokens = available
        clock = departure
        lastDeparture = departure
        if loss > 0, Double.random(in: 0..<1, using: &random) < loss { return nil }
        var arrival = departure + delay + (jitter > 0 ? Double.random(in: 0..<1, using: &random) * jitter : 0)
        if let stall, arrival >= stall.at, arrival < stall.at + stall.length { arrival = stall.at + stall.length }
        return arrival
    }
}

/// Runs a controller-driven probe over `path`, the receiver's reports reaching the sender
/// `feedbackDelay` after each arrival (the edge's 100 ms batches plus the way back).
struct ProbeSimulation {
    var arrivals: [ProbeArrival] = []
    var controller: BandwidthProbeController
    var bytesSent = 0
    var packetsSent = 0
    var endTime = 0.0

    init(path: TokenBucketPath, expected: Double, feedbackDelay: Double = 0.12, configuration: BandwidthProbeController.Configuration = .init()) {
        var path = path
        controller = BandwidthProbeController(expectedBitrate: expected, start: 0, configuration: configuration)
        var pacer = ProbePacer()
        var pending: [(observeAt: Double, arrival: ProbeArrival)] = []
        var sequence: UInt32 = 0
        var now = 0.0
        while now < 10 {
            while let first = pending.first, first.observeAt <= now {
                controller.observe(first.arrival, at: now)
                pending.removeFirst()
            }
            guard let rate = controller.rate(at: now) else { break }
            while pacer.due(now: now) <= now {
                let size = ProbePacket.size(forRate: rate) + ProbePacket.wireOverhead(ipv6: false)
                let sendTime = pacer.due(now: now)
                if let arrival = path.send(bytes: size, at: sendTime) {
                    let record = ProbeArrival(sequence: sequence, sendTime: sendTime, arrivalTime: arrival + 100, wireBytes: size)
                    arrivals.append(record)
                    pending.append((arrival + feedbackDelay, record))
                    pending.sort { $0.observeAt < $1.observeAt }
                }
                sequence += 1
                bytesSent += size
                packetsSent += 1
                pacer.sent(wireBytes: size, rate: rate, now: now)
            }
            now += 0.001
        }
        endTime = now
    }
}

import Foundation

/// Decides one direction's probe rate over time (sans-IO: time and arrivals in, a rate out), for
/// whichever side sends: the client on the uplink, the edge on the downlink at the client's request.
///
/// The rate starts at ``Configuration/startRate`` and steps up by ``Configuration/stepFactor``
/// every ``Configuration/stepDuration`` until either
/// - the receiver's queueing delay rises (``Configuration/kneeDelay`` over the lowest one-way delay
///   seen, for ``Configuration/kneePackets`` packets in a row) or its loss jumps: the knee. The
///   sender then overdrives the bottleneck (× ``Configuration/overdriveFactor``, at most the
///   ceiling) for ``Configuration/measureDuration``, so that its queue never empties and the
///   receive rate is the bottleneck's own; or
/// - it reaches the ceiling, ``Configuration/ceilingFactor`` × the expected bitrate, and holds it
///   for ``Configuration/holdDuration`` without a knee: the path holds at least the expected bitrate.
///
/// A knee that was noise (a scheduling stall on a loaded host delays a few packets) shows itself
/// while the sender overdrives: a real bottleneck delivers less than it is offered and its queue
/// only grows. ``Configuration/falseKneePackets`` packets in a row back at the lowest delay, or the
/// overdrive's packets delivered at ``Configuration/saturationRatio`` of their offered rate or
/// more, withdraw it, and the ramp resumes from the overdrive rate.
/// ``Configuration/maximumDuration`` ends it in any case. ``BandwidthEstimator`` then judges the
/// arrivals; this controller only decides what to send.
public struct BandwidthProbeController: Sendable {
    /// Where the probe is.
    public enum Phase: Sendable, Hashable {
        /// Stepping up; the step number (0 first).
        case ramping(step: Int)
        /// Past the knee, overdriving since this time.
        case overdriving(since: Double)
        /// At the ceiling without a knee since this time.
        case holding(since: Double)
        /// Done.
        case finished
    }

    /// The settings.
    public let configuration: Configuration
    /// The expected bitrate, bps.
    public let expectedBitrate: Double
    /// When the probe started (sender's clock, seconds).
    public let start: Double
    /// Where the probe is now.
    public private(set) var phase = Phase.ramping(step: 0)
    /// The highest rate asked for so far, bps.
    public private(set) var highestRate = 0.0
    /// When the sender began to hold its final rate: the ceiling, or the overdrive after a knee
    /// (the estimator's `holdStart`); `nil` while it ramps.
    public private(set) var holdStart: Double?
    /// When the knee was seen, if it was (and not withdrawn).
    public private(set) var kneeTime: Double?
    /// Knees withdrawn because the delay came back down while overdriving.
    public private(set) var falseKnees = 0
    private var overdriveRate = 0.0
    private var rampOrigin: (time: Double, rate: Double)
    private var lowestDelay = Double.infinity
    private var highInARow = 0
    private var lowInARow = 0
    /// The overdrive's packets so far: the first and the latest, and their bytes and count.
    private var overdriveSample: (first: ProbeArrival, last: ProbeArrival, bytes: Int, count: Int)?
    private var recent: [UInt32] = []

    /// The highest rate the probe sends: ``Configuration/ceilingFactor`` × the expected bitrate.
    public var ceiling: Double { expectedBitrate * configuration.ceilingFactor }

    /// Creates a controller for a probe that starts at `start`.
    public init(expectedBitrate: Double, start: Double, configuration: Configuration = Configuration()) {
        self.expectedBitrate = expectedBitrate
        self.start = start
        self.configuration = configuration
        rampOrigin = (start, configuration.startRate)
    }

    /// The rate to send at `now`, bps; `nil` once the probe is over.
    public mutating func rate(at now: Double) -> Double? {
        if now - start >= configuration.maximumDuration { phase = .finished }
        let rate: Double
        switch phase {
        case .finished:
            return nil
        case .overdriving(let since):
            guard now - since < configuration.measureDuration else {
                phase = .finished
                return nil
            }
            rate = overdriveRate
        case .holding(let since):
            guard now - since < configuration.holdDuration else {
                phase = .finished
                return nil
            }
            rate = ceiling
        case .ramping:
            let step = max(0, Int(((now - rampOrigin.time) / configuration.stepDuration).rounded(.down)))
            let stepped = rampOrigin.rate * pow(configuration.stepFactor, Double(min(step, 64)))
            if stepped >= ceiling {
                phase = .holding(since: now)
                holdStart = now
                rate = ceiling
            } else {
                phase = .ramping(step: step)
                rate = stepped
            }
        }
        highestRate = max(highestRate, rate)
        return rate
    }

    /// A packet's arrival, as the receiver reported it, observed at `now` (sender's clock).
    public mutating func observe(_ arrival: ProbeArrival, at now: Double) {
        let delay = arrival.arrivalTime - arrival.sendTime
        lowestDelay = min(lowestDelay, delay)
        highInARow = delay - lowestDelay > configuration.kneeDelay ? highInARow + 1 : 0
        lowInARow = delay - lowestDelay <= configuration.kneeDelay / 2 ? lowInARow + 1 : 0
        recent.append(arrival.sequence)
        if recent.count > configuration.lossWindow { recent.removeFirst(recent.count - configuration.lossWindow) }
        if kneeTime != nil {
            withdrawFalseKnee(arrival, at: now)
            return
        }
        var lossy = false
        if recent.count == configuration.lossWindow, let lowest = recent.min(), let highest = recent.max() {
            let span = Double(highest - lowest) + 1
            lossy = (span - Double(recent.count)) / span > configuration.kneeLossFraction
        }
        guard highInARow >= configuration.kneePackets || lossy else { return }
        // The rate now (a probe whose time is up stays finished).
        guard let current = rate(at: now) else { return }
        switch phase {
        case .ramping, .holding:
            // The current rate is past the bottleneck: overdrive it so its queue never empties.
            kneeTime = now
            lowInARow = 0
            overdriveSample = nil
            overdriveRate = min(ceiling, max(current, highestRate) * configuration.overdriveFactor)
            holdStart = now
            phase = .overdriving(since: now)
        case .overdriving, .finished:
            break
        }
    }

    /// While overdriving, a queue only grows and the path delivers less than it is offered:
    /// packets back at the lowest delay, or delivered as fast as they were sent, mean there was none.
    private mutating func withdrawFalseKnee(_ arrival: ProbeArrival, at now: Double) {
        guard case .overdriving(let since) = phase else { return }
        var delivered = false
        // Arrivals observed once the overdrive had time to reach the receiver.
        if now - since >= configuration.overdriveSettle {
            var sample = overdriveSample ?? (arrival, arrival, 0, 0)
            sample.last = arrival
            sample.bytes += arrival.wireBytes
            sample.count += 1
            overdriveSample = sample
            let receiveSpan = sample.last.arrivalTime - sample.first.arrivalTime
            let sendSpan = sample.last.sendTime - sample.first.sendTime
            if sample.count >= configuration.falseKneePackets * 3, receiveSpan >= 0.25, sendSpan > 0,
                sample.last.sequence > sample.first.sequence
            {
                let offered = Double(sample.bytes) / Double(sample.count) * (Double(sample.last.sequence - sample.first.sequence) + 1) / sendSpan
                delivered = Double(sample.bytes) / receiveSpan >= configuration.saturationRatio * offered
            }
        }
        guard lowInARow >= configuration.falseKneePackets || delivered else { return }
        falseKnees += 1
        kneeTime = nil
        holdStart = nil
        highInARow = 0
        overdriveSample = nil
        rampOrigin = (now, overdriveRate)
        phase = .ramping(step: 0)
    }
}

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
    /// When the hold at the ceiling began, if it did (the estimator's `ceilingStart`).
    public private(set) var ceilingStart: Double?
    /// When the knee was seen, if it was.
    public private(set) var kneeTime: Double?
    private var overdriveRate = 0.0
    private var lowestDelay = Double.infinity
    private var highInARow = 0
    private var recent: [UInt32] = []

    /// The highest rate the probe sends: ``Configuration/ceilingFactor`` × the expected bitrate.
    public var ceiling: Double { expectedBitrate * configuration.ceilingFactor }

    /// Creates a controller for a probe that starts at `start`.
    public init(expectedBitrate: Double, start: Double, configuration: Configuration = Configuration()) {
        self.expectedBitrate = expectedBitrate
        self.start = start
        self.configuration = configuration
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
            let step = max(0, Int(((now - start) / configuration.stepDuration).rounded(.down)))
            let stepped = configuration.startRate * pow(configuration.stepFactor, Double(min(step, 64)))
            if stepped >= ceiling {
                phase = .holding(since: now)
                ceilingStart = now
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
        recent.append(arrival.sequence)
        if recent.count > configuration.lossWindow { recent.removeFirst(recent.count - configuration.lossWindow) }
        guard kneeTime == nil else { return }
        var lossy = false
        if recent.count == configuration.lossWindow, let lowest = recent.min(), let highest = recent.max() {
            let span = Double(highest - lowest) + 1
            lossy = (span - Double(recent.count)) / span > configuration.kneeLossFraction
        }
        guard highInARow >= configuration.kneePackets || lossy else { return }
        kneeTime = now
        switch phase {
        case .ramping, .holding:
            // The current rate is past the bottleneck: overdrive it so its queue never empties.
            let current = rate(at: now) ?? highestRate
            overdriveRate = min(ceiling, max(current, highestRate) * configuration.overdriveFactor)
            ceilingStart = nil
            phase = .overdriving(since: now)
        case .overdriving, .finished:
            break
        }
    }
}

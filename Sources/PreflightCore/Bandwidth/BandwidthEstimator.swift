/// Estimates one direction's available bandwidth from the arrivals of a rate-stepped probe
/// (docs/measurement.md, "Bandwidth"). Pure: arrivals in, an estimate out.
///
/// While the probe is slower than the bottleneck, packets cross it without waiting and their
/// one-way delay stays at its floor. Once faster, a queue forms, the delay rises, and from then on
/// the bottleneck releases packets at exactly its own rate: the **receive rate after the knee**,
/// counted in wire bytes, is the capacity. The average over the whole train is not: a token bucket
/// lets its burst through at line rate before the queue forms (on tbf +20 % to +35 % with 16–64 KB
/// buckets), and the slow steps before the knee pull it down.
///
/// - A rise in delay counts as the knee only if, from there on, the path delivered less than 90 %
///   (``Configuration/saturationRatio``) of what was offered: a busy host's scheduling stalls
///   delay packets too, but deliver them all.
/// - The knee is the first packet from which nearly every later packet (all but
///   ``Configuration/maximumLowFraction``) waits longer than the threshold: the larger of
///   ``Configuration/delayThresholdFloor`` and ``Configuration/noiseMultiplier`` × the 90th
///   percentile of the queueing delay before it (the path's own jitter).
/// - An estimate needs ``Configuration/minimumPacketsAfterKnee`` packets over
///   ``Configuration/minimumSpan`` after the knee, and the receive rates of their two halves must
///   agree within ``Configuration/halvesTolerance``.
/// - Without a knee, the path is judged on the probe's final hold (at its ceiling, or at an
///   overdrive whose knee was noise): if it carried at least the expected bitrate there, the
///   answer is "at least the expected bitrate".
public enum BandwidthEstimator {
    /// Estimates from `arrivals` (any order; duplicates of a sequence number count once).
    /// - Parameters:
    ///   - expectedBitrate: the bitrate the application expects, bps.
    ///   - hold: where the sender's final hold began (``BandwidthProbeController/holdStart``), or
    ///     `nil` when it never held a rate.
    public static func estimate(
        _ arrivals: [ProbeArrival], expectedBitrate: Double, hold: Hold?, configuration: Configuration = Configuration()
    ) -> BandwidthEstimate {
        var seen = Set<UInt32>()
        let packets = arrivals.sorted { $0.arrivalTime < $1.arrivalTime }.filter { seen.insert($0.sequence).inserted }
        guard packets.count >= 2 else {
            return BandwidthEstimate(outcome: .noEstimate, reason: "\(packets.count) probe packets arrived", packetsReceived: packets.count)
        }
        let delays = packets.map { $0.arrivalTime - $0.sendTime }
        let floor = delays.min() ?? 0
        let queueing = delays.map { $0 - floor }
        // The threshold follows the path's own jitter, measured before the knee found with the floor.
        var threshold = configuration.delayThresholdFloor
        var knee = findKnee(queueing, threshold: threshold, configuration: configuration)
        let before = queueing[..<(knee ?? queueing.count)].sorted()
        if !before.isEmpty {
            let p90 = before[min(before.count - 1, Int((Double(before.count) * 0.9).rounded(.up)) - 1)]
            threshold = max(configuration.delayThresholdFloor, configuration.noiseMultiplier * p90)
            knee = findKnee(queueing, threshold: threshold, configuration: configuration)
        }
        // A rise in delay is a bottleneck only if the path delivered less than was offered after
        // it: on a busy host, scheduling stalls delay packets without any queue in the network.
        if let found = knee, !configuration.averagesWholeTrain, !deliveredLessThanOffered(packets[found...], configuration: configuration) {
            knee = nil
        }
        // Loss and jitter of what crossed before the knee (at least the first 10 packets).
        let quiet = packets[..<max(knee ?? packets.count, min(packets.count, 10))]
        var estimate = BandwidthEstimate(
            outcome: .noEstimate, lossPercent: lossPercent(quiet), jitterMilliseconds: jitter(quiet) * 1000,
            packetsReceived: packets.count, delayThreshold: threshold)
        let sample: ArraySlice<ProbeArrival>
        if configuration.averagesWholeTrain {
            sample = packets[...]  // broken on purpose: the bucket's burst and the slow steps count
        } else if let knee {
            sample = packets[knee...]
            estimate.kneeTime = packets[knee].arrivalTime
        } else if let hold {
            sample = packets.filter { hold.contains($0) }[...]
        } else {
            estimate.reason = "the probe ended before the path saturated or carried the expected bitrate"
            return estimate
        }
        estimate.packetsAfterKnee = sample.count
        guard sample.count >= configuration.minimumPacketsAfterKnee,
            let first = sample.first, let last = sample.last, last.arrivalTime - first.arrivalTime >= configuration.minimumSpan
        else {
            estimate.reason = "\(sample.count) packets \(knee == nil ? "in the final hold" : "after the knee"); an estimate needs \(configuration.minimumPacketsAfterKnee) over \(configuration.minimumSpan) s"
            return estimate
        }
        let rate = receiveRate(sample, configuration: configuration)
        let middle = (first.arrivalTime + last.arrivalTime) / 2
        let split = sample.firstIndex { $0.arrivalTime >= middle } ?? sample.endIndex - 1
        let halves = [
            receiveRate(sample[...split], configuration: configuration), receiveRate(sample[split...], configuration: configuration),
        ]
        estimate.halves = halves
        guard rate > 0, rate.isFinite else {
            estimate.reason = "no bytes crossed after the knee"
            return estimate
        }
        estimate.rate = rate
        guard knee != nil || configuration.averagesWholeTrain else {
            // No bottleneck: a lower bound, not a capacity, so the halves need not agree.
            if rate >= expectedBitrate {
                estimate.outcome = .atLeastExpected
            } else {
                estimate.reason = "the path carried \(Int(rate / 1000)) kbit/s, below the expected \(Int(expectedBitrate / 1000)), without saturating (a policer, heavy loss, or a probe cut short)"
            }
            return estimate
        }
        // (The whole-train average, broken on purpose, is reported as it is.)
        guard configuration.averagesWholeTrain || abs(halves[0] - halves[1]) <= configuration.halvesTolerance * max(halves[0], halves[1]) else {
            estimate.reason = "the two halves after the knee disagree: \(Int(halves[0] / 1000)) and \(Int(halves[1] / 1000)) kbit/s"
            return estimate
        }
        estimate.outcome = .saturated
        return estimate
    }

    /// Whether the packets from the knee on crossed at less than ``Configuration/saturationRatio``
    /// of the rate they were offered at (their send-time span, the lost ones counted at the mean size).
    static func deliveredLessThanOffered(_ packets: ArraySlice<ProbeArrival>, configuration: Configuration) -> Bool {
        guard let first = packets.first, let last = packets.last, packets.count >= 2 else { return false }
        let sendSpan = (packets.map(\.sendTime).max() ?? 0) - (packets.map(\.sendTime).min() ?? 0)
        let receiveSpan = last.arrivalTime - first.arrivalTime
        guard sendSpan > 0, receiveSpan > 0 else { return receiveSpan > sendSpan }
        let sequences = packets.map(\.sequence)
        let expected = Double((sequences.max() ?? 0) - (sequences.min() ?? 0)) + 1
        let bytes = Double(packets.reduce(0) { $0 + $1.wireBytes })
        let offered = bytes / Double(packets.count) * expected / sendSpan
        let received = bytes / receiveSpan
        return received < configuration.saturationRatio * offered
    }

    /// The first index from which all but `maximumLowFraction` of the packets wait longer than
    /// `threshold`, itself one that waits; `nil` when there is none.
    static func findKnee(_ queueing: [Double], threshold: Double, configuration: Configuration) -> Int? {
        var lowAfter = [Int](repeating: 0, count: queueing.count + 1)
        for index in queueing.indices.reversed() {
            lowAfter[index] = lowAfter[index + 1] + (queueing[index] <= threshold ? 1 : 0)
        }
        for index in queueing.indices where queueing[index] > threshold {
            let remaining = queueing.count - index
            if remaining >= 2, Double(lowAfter[index]) <= configuration.maximumLowFraction * Double(remaining) { return index }
        }
        return nil
    }

    /// Bits per second between the first and the last packet: every packet but the first, whose
    /// bytes crossed the bottleneck before the interval began.
    static func receiveRate(_ packets: ArraySlice<ProbeArrival>, configuration: Configuration) -> Double {
        guard let first = packets.first, let last = packets.last, last.arrivalTime > first.arrivalTime else { return 0 }
        let bytes = packets.dropFirst().reduce(0) { $0 + $1.wireBytes - (configuration.countsHeaders ? 0 : configuration.wireOverhead) }
        return Double(bytes) * 8 / (last.arrivalTime - first.arrivalTime)
    }

    /// Lost packets among sequence numbers 0…highest received, %.
    static func lossPercent(_ packets: ArraySlice<ProbeArrival>) -> Double {
        guard let highest = packets.map(\.sequence).max() else { return 0 }
        let expected = Double(highest) + 1
        return max(0, expected - Double(packets.count)) / expected * 100
    }

    /// RFC 3550 §6.4.1 interarrival jitter over packets in arrival order, seconds.
    static func jitter(_ packets: ArraySlice<ProbeArrival>) -> Double {
        var jitter = 0.0
        var previous: ProbeArrival?
        for packet in packets {
            if let previous {
                let difference = (packet.arrivalTime - previous.arrivalTime) - (packet.sendTime - previous.sendTime)
                jitter += (abs(difference) - jitter) / 16
            }
            previous = packet
        }
        return jitter
    }
}

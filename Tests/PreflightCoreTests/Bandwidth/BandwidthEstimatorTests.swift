import PreflightCore
import Testing

/// The estimator and the controller together on simulated tbf paths: the receive rate after the
/// knee, in wire bytes, is the shaper's rate, whatever the bucket.
@Suite struct BandwidthEstimatorTests {
    struct Path: Sendable, CustomTestStringConvertible {
        let rate: Double
        let burst: Double
        var loss = 0.0
        var delay = 0.010
        var expected = 5_000_000.0
        var testDescription: String { "\(Int(rate / 1000)) kbit/s, \(Int(burst)) B bucket, loss \(loss), expected \(Int(expected / 1000))" }
    }

    /// tbf's sane bucket: max(2 MTU, 10 ms of the rate).
    static func saneBurst(_ rate: Double) -> Double { max(3000, rate / 8 * 0.010) }

    static let saturating: [Path] = [
        Path(rate: 300_000, burst: saneBurst(300_000)),
        Path(rate: 1_000_000, burst: saneBurst(1_000_000)),
        Path(rate: 3_000_000, burst: saneBurst(3_000_000)),
        Path(rate: 5_000_000, burst: saneBurst(5_000_000)),
        Path(rate: 2_000_000, burst: 64 * 1024),
        Path(rate: 2_000_000, burst: saneBurst(2_000_000), loss: 0.01, delay: 0.020),
        Path(rate: 300_000, burst: 16 * 1024, expected: 1_000_000),
    ]

    @Test(arguments: saturating)
    func saturatedPathReadsTheShaperRate(_ path: Path) {
        let run = ProbeSimulation(
            path: TokenBucketPath(rate: path.rate, burst: path.burst, delay: path.delay, loss: path.loss), expected: path.expected)
        let estimate = BandwidthEstimator.estimate(
            run.arrivals, expectedBitrate: path.expected, hold: run.controller.holdStart.map { .sentFrom($0) })
        #expect(estimate.outcome == .saturated, "\(estimate.reason ?? "")")
        // Random loss after the shaper removes its share of the bytes the shaper passed.
        let truth = path.rate * (1 - path.loss)
        #expect(abs(estimate.rate - truth) / truth < 0.03, "estimate \(estimate.rate) vs \(truth)")
        #expect(run.controller.kneeTime != nil)
        #expect(run.endTime < 4.5, "the probe took \(run.endTime) s")
        #expect(estimate.packetsAfterKnee >= 30)
    }

    /// A 40 ms stall of the receiver early in the ramp looks like a queue; the overdrive that
    /// follows shows there is none, the knee is withdrawn, and the real one is found.
    @Test func aStallIsNotTheKnee() {
        var path = TokenBucketPath(rate: 3_000_000, burst: Self.saneBurst(3_000_000))
        path.stall = (0.5, 0.04)
        let run = ProbeSimulation(path: path, expected: 5_000_000)
        let estimate = BandwidthEstimator.estimate(run.arrivals, expectedBitrate: 5_000_000, hold: run.controller.holdStart.map { .sentFrom($0) })
        #expect(run.controller.falseKnees == 1)
        #expect(estimate.outcome == .saturated, "\(estimate.reason ?? "")")
        #expect(abs(estimate.rate - 3_000_000) / 3_000_000 < 0.03, "estimate \(estimate.rate)")
        #expect(run.endTime < 4.5)
    }

    /// The same stall on a path that never saturates: "at least the expected bitrate" still.
    @Test func aStallOnAFastPathStillHoldsTheExpectedBitrate() {
        var path = TokenBucketPath(rate: 50_000_000, burst: Self.saneBurst(50_000_000))
        path.stall = (0.9, 0.04)
        let run = ProbeSimulation(path: path, expected: 2_000_000)
        let estimate = BandwidthEstimator.estimate(run.arrivals, expectedBitrate: 2_000_000, hold: run.controller.holdStart.map { .sentFrom($0) })
        #expect(run.controller.falseKnees == 1)
        #expect(estimate.outcome == .atLeastExpected, "\(estimate.reason ?? "")")
        #expect(estimate.rate >= 2_000_000)
    }

    @Test func pathAboveTheCeilingHoldsAtLeastTheExpectedBitrate() {
        let run = ProbeSimulation(path: TokenBucketPath(rate: 5_000_000, burst: Self.saneBurst(5_000_000)), expected: 1_000_000)
        let estimate = BandwidthEstimator.estimate(run.arrivals, expectedBitrate: 1_000_000, hold: run.controller.holdStart.map { .sentFrom($0) })
        #expect(estimate.outcome == .atLeastExpected, "\(estimate.reason ?? "")")
        #expect(estimate.rate >= 1_000_000)
        #expect(estimate.rate <= 5_000_000)
        #expect(run.controller.kneeTime == nil)
        #expect(run.controller.highestRate == 1_500_000)
    }

    /// The downlink's way: the hold known by arrival time on the receiver's clock, whose origin is
    /// not the sender's (the simulation's receiver clock is 100 s ahead).
    @Test func theHoldByArrivalTimeGivesTheSameAnswer() {
        let run = ProbeSimulation(path: TokenBucketPath(rate: 5_000_000, burst: Self.saneBurst(5_000_000)), expected: 1_000_000)
        let holdStart = run.controller.holdStart ?? 0
        let bySend = BandwidthEstimator.estimate(run.arrivals, expectedBitrate: 1_000_000, hold: .sentFrom(holdStart))
        let byArrival = BandwidthEstimator.estimate(run.arrivals, expectedBitrate: 1_000_000, hold: .arrivedFrom(holdStart + 100 + 0.1))
        #expect(byArrival.outcome == .atLeastExpected)
        #expect(abs(byArrival.rate - bySend.rate) / bySend.rate < 0.02, "\(byArrival.rate) vs \(bySend.rate)")
        // Sent times are on another clock: compared with the receiver's, they would take the ramp in.
        let wrong = BandwidthEstimator.estimate(run.arrivals, expectedBitrate: 1_000_000, hold: .sentFrom(holdStart - 100))
        #expect(wrong.rate < bySend.rate * 0.9)
    }

    @Test func lossBeforeTheKneeIsThePathsLossNotTheProbesOwn() {
        let run = ProbeSimulation(
            path: TokenBucketPath(rate: 5_000_000, burst: Self.saneBurst(5_000_000), loss: 0.05, seed: 7), expected: 5_000_000)
        let estimate = BandwidthEstimator.estimate(run.arrivals, expectedBitrate: 5_000_000, hold: run.controller.holdStart.map { .sentFrom($0) })
        // Tail drops past the knee are many; the loss reported is the 5 % of the quiet part.
        #expect(estimate.lossPercent > 2 && estimate.lossPercent < 9, "loss \(estimate.lossPercent)")
        #expect(estimate.jitterMilliseconds < 1)
    }

    /// The measurements broken on purpose: the whole-train average misses by more than 10 % through
    /// a 64 KB bucket (the accuracy benchmark's check that it can fail), and payload bytes alone
    /// read low by the headers' share (42 B of each packet).
    @Test func brokenMeasurementsMissTheShaperRate() {
        let bucket = ProbeSimulation(path: TokenBucketPath(rate: 2_000_000, burst: 64 * 1024), expected: 5_000_000)
        let whole = BandwidthEstimator.estimate(
            bucket.arrivals, expectedBitrate: 5_000_000, hold: nil, configuration: .init(averagesWholeTrain: true))
        #expect(whole.outcome == .saturated)
        #expect(abs(whole.rate - 2_000_000) / 2_000_000 > 0.10, "whole train \(whole.rate)")
        let slow = ProbeSimulation(path: TokenBucketPath(rate: 300_000, burst: Self.saneBurst(300_000)), expected: 5_000_000)
        let payloadOnly = BandwidthEstimator.estimate(
            slow.arrivals, expectedBitrate: 5_000_000, hold: nil, configuration: .init(countsHeaders: false))
        let right = BandwidthEstimator.estimate(slow.arrivals, expectedBitrate: 5_000_000, hold: nil)
        #expect((right.rate - payloadOnly.rate) / right.rate > 0.03, "payload only \(payloadOnly.rate) vs \(right.rate)")
    }

    @Test func halvesThatDisagreeGiveNoEstimate() {
        // The bottleneck's rate halves midway after the knee: no single capacity to report.
        var arrivals: [ProbeArrival] = []
        var time = 0.0
        for sequence in 0..<400 {
            let rate = sequence < 200 ? 2_000_000.0 : 1_000_000.0
            time += 1242 * 8 / rate
            // Queueing delay grows from the first packet: the knee is at once.
            arrivals.append(ProbeArrival(sequence: UInt32(sequence), sendTime: Double(sequence) * 0.001, arrivalTime: time + 0.01, wireBytes: 1242))
        }
        let estimate = BandwidthEstimator.estimate(arrivals, expectedBitrate: 5_000_000, hold: nil)
        #expect(estimate.outcome == .noEstimate)
        #expect(estimate.reason?.contains("halves") == true)
        #expect(estimate.halves.count == 2)
    }

    @Test func tooFewPacketsGiveNoEstimate() {
        let arrivals = (0..<10).map { ProbeArrival(sequence: UInt32($0), sendTime: Double($0) * 0.01, arrivalTime: Double($0) * 0.02, wireBytes: 242) }
        let estimate = BandwidthEstimator.estimate(arrivals, expectedBitrate: 1_000_000, hold: nil)
        #expect(estimate.outcome == .noEstimate)
        #expect(BandwidthEstimator.estimate([], expectedBitrate: 1_000_000, hold: nil).outcome == .noEstimate)
    }

    /// Found by FuzzProbe: records of zero bytes after a knee made a "saturated" estimate of 0 bit/s.
    @Test func zeroBytesAfterTheKneeAreNoEstimate() {
        let arrivals = (0..<40).map { ProbeArrival(sequence: UInt32($0), sendTime: 0, arrivalTime: Double($0) * 0.02, wireBytes: 0) }
        let estimate = BandwidthEstimator.estimate(
            arrivals, expectedBitrate: 1_000_000, hold: nil, configuration: .init(minimumPacketsAfterKnee: 2, minimumSpan: 0))
        #expect(estimate.kneeTime != nil)
        #expect(estimate.outcome == .noEstimate)
        #expect(estimate.rate == 0)
    }

    @Test func jitterWithoutQueueingIsNoKnee() {
        // ±3 ms of path jitter and no bottleneck: the threshold follows the noise.
        var random = SplitMix64(seed: 3)
        let arrivals = (0..<600).map { index -> ProbeArrival in
            let send = Double(index) * 0.002
            return ProbeArrival(
                sequence: UInt32(index), sendTime: send, arrivalTime: send + 0.02 + Double.random(in: 0..<0.006, using: &random), wireBytes: 1242)
        }
        let estimate = BandwidthEstimator.estimate(arrivals, expectedBitrate: 1_000_000, hold: .sentFrom(0.6))
        #expect(estimate.kneeTime == nil)
        #expect(estimate.outcome == .atLeastExpected, "\(estimate.reason ?? "")")
    }

    @Test func pacerKeepsAbsoluteDeadlines() {
        var pacer = ProbePacer()
        // A sender that wakes 0.3 ms late every time still averages the rate: deadlines do not drift.
        var now = 0.0
        var sent = 0
        while now < 1 {
            if pacer.due(now: now) <= now {
                pacer.sent(wireBytes: 1250, rate: 1_000_000, now: now)
                sent += 1
            }
            now = max(now + 0.0001, (pacer.nextDeadline ?? now) + 0.0003)
        }
        #expect(abs(sent - 100) <= 1, "sent \(sent)")
        // Far behind: a new chain, no burst.
        pacer.sent(wireBytes: 1250, rate: 1_000_000, now: 5)
        #expect(pacer.nextDeadline == 5.01)
    }
}

/// The controller on its own: found by FuzzProbe, a knee seen before the first rate was asked
/// for overdrove at 0 bit/s, and one seen after the time limit revived a finished probe.
@Suite struct BandwidthProbeControllerTests {
    static func queued(_ sequence: UInt32) -> ProbeArrival {
        ProbeArrival(sequence: sequence, sendTime: 0, arrivalTime: sequence == 0 ? 0 : 1, wireBytes: 1242)
    }

    @Test func aKneeBeforeAnyRateOverdrivesAboveTheStart() throws {
        var controller = BandwidthProbeController(expectedBitrate: 1_000_000, start: 0)
        for sequence in 0..<6 { controller.observe(Self.queued(UInt32(sequence)), at: 0.01) }
        #expect(controller.kneeTime == 0.01)
        let rate = controller.rate(at: 0.02) ?? 0
        #expect(rate > 0 && rate <= controller.ceiling)
        #expect(controller.phase == .overdriving(since: 0.01))
    }

    @Test func aKneeAfterTheTimeLimitLeavesTheProbeFinished() {
        var controller = BandwidthProbeController(expectedBitrate: 1_000_000, start: 0)
        _ = controller.rate(at: 0)
        for sequence in 0..<6 { controller.observe(Self.queued(UInt32(sequence)), at: 10) }
        #expect(controller.phase == .finished)
        #expect(controller.rate(at: 10.1) == nil)
    }

    @Test func rampReachesTheCeilingAndHoldsIt() {
        var controller = BandwidthProbeController(expectedBitrate: 1_000_000, start: 0)
        #expect(controller.rate(at: 0) == 100_000)
        #expect(controller.rate(at: 0.15) == 150_000)
        // 100 k × 1.5^6 = 1.14 M: under the 1.5 M ceiling; 1.5^7 is over it.
        #expect((controller.rate(at: 0.95) ?? .infinity) < 1_500_000)
        #expect(controller.rate(at: 1.05) == 1_500_000)
        #expect(controller.holdStart == 1.05)
        #expect(controller.rate(at: 1.80) == 1_500_000)
        #expect(controller.rate(at: 1.86) == nil)
        #expect(controller.highestRate == 1_500_000)
    }
}

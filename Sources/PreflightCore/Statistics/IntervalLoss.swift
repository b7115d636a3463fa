/// Loss per sampling interval from a stream's cumulative counts, without the bias that RFC 3550
/// A.3's clamping has on a path that reorders.
///
/// A.3 takes `expected − received` over the interval and clamps a negative value to 0. A packet
/// that is late across an interval's end shows as lost in that interval and as a negative loss in
/// the next, which is clamped away: every late packet counts as lost once. On a lab path with
/// 300 ms RTT and 40 ms jitter (half the packets reordered, none lost) that read 4–6 % of loss
/// per second and raised high-packets-lost-fraction. Here a negative change is kept as a credit
/// and taken off the next intervals' loss, so the intervals add up to the cumulative loss.
public struct IntervalLoss: Sendable, Hashable {
    private var priorExpected = 0
    private var priorLost = 0
    private var credit = 0

    /// Creates a meter with nothing counted.
    public init() {}

    /// Closes an interval.
    /// - Parameters:
    ///   - expected: packets expected so far (cumulative).
    ///   - lost: packets lost so far (cumulative, late packets not yet arrived included).
    /// - Returns: the interval's expected and lost packets and its loss in percent (0 when nothing
    ///   was expected).
    public mutating func close(expected: Int, lost: Int) -> (expected: Int, lost: Int, percent: Double) {
        let intervalExpected = Swift.max(0, expected - priorExpected)
        var intervalLost = lost - priorLost
        priorExpected = expected
        priorLost = lost
        if intervalLost < 0 {
            credit += -intervalLost
            intervalLost = 0
        } else {
            let used = Swift.min(credit, intervalLost)
            intervalLost -= used
            credit -= used
        }
        intervalLost = Swift.min(intervalLost, intervalExpected)
        let percent = intervalExpected > 0 ? Double(intervalLost) / Double(intervalExpected) * 100 : 0
        return (intervalExpected, intervalLost, percent)
    }
}

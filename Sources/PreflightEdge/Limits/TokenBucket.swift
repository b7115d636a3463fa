/// A token bucket: allows `rate` events per second on average with bursts of up to `burst`.
///
/// Pure: the caller passes the time (seconds on any monotonic clock), so tests run without clocks.
/// The edge's own (``SourceRateLimiter``): the SDK never limits rates.
struct TokenBucket: Sendable, Hashable {
    /// Sustained rate, events per second.
    let rate: Double
    /// Largest burst, events.
    let burst: Double
    private var tokens: Double
    private var last: Double?

    /// Creates a full bucket.
    /// - Parameters:
    ///   - rate: events per second, > 0 (a non-positive or NaN rate allows nothing).
    ///   - burst: the bucket size, ≥ 1.
    init(rate: Double, burst: Double) {
        self.rate = rate.isFinite && rate > 0 ? rate : 0
        self.burst = burst.isFinite ? max(1, burst) : 1
        tokens = self.burst
        last = nil
    }

    /// Takes one token at `time` if there is one.
    /// - Returns: whether the event is allowed.
    mutating func allow(at time: Double) -> Bool {
        if let last, time.isFinite, time > last {
            tokens = min(burst, tokens + (time - last) * rate)
        }
        if time.isFinite, last.map({ time > $0 }) ?? true { last = time }
        // A tolerance for rounding: (5.1 − 5) × 10 is 0.99999…, and a sender at exactly the rate
        // must pass.
        guard tokens >= 1 - 1e-9 else { return false }
        tokens -= 1
        return true
    }
}

import PreflightCore

/// Per-source token buckets in a table of bounded size.
///
/// When the table is full it evicts, instead of clearing: it forgets the sources idle long enough
/// for their bucket to have refilled (forgetting them changes nothing, a new bucket starts full),
/// at most once per refill time so a flood cannot make every datagram pay for a sweep. Sources
/// that still find no room share one overflow bucket. A flood of spoofed sources therefore never
/// resets the limit of a source that is sending, and never grows the table past its capacity.
public struct SourceRateLimiter<Source: Hashable & Sendable>: Sendable {
    struct Entry: Sendable {
        var bucket: TokenBucket
        var lastSeen: Double
    }

    /// Datagrams per second for each source.
    public let rate: Double
    /// Largest burst of one source.
    public let burst: Double
    /// Sources tracked at most.
    public let capacity: Int
    private var entries: [Source: Entry] = [:]
    private var overflow: TokenBucket
    private var lastSweep = -Double.infinity

    /// Creates an empty table.
    public init(rate: Double, burst: Double, capacity: Int) {
        self.rate = rate
        self.burst = burst
        self.capacity = max(1, capacity)
        overflow = TokenBucket(rate: rate, burst: burst)
    }

    /// Sources tracked now.
    public var count: Int { entries.count }

    /// Seconds after which an idle source's bucket is full again.
    var refillTime: Double { rate > 0 ? TokenBucket(rate: rate, burst: burst).burst / rate : .infinity }

    /// The bucket `source` has now (a fresh one when it has none), for a caller that takes the
    /// source's limit over (a verified media address keeps its bucket beside its budget).
    func bucket(for source: Source) -> TokenBucket {
        entries[source]?.bucket ?? TokenBucket(rate: rate, burst: burst)
    }

    /// Takes a token for `source` at `now` (seconds on a monotonic clock).
    /// - Returns: whether the datagram is allowed.
    public mutating func allow(_ source: Source, at now: Double) -> Bool {
        // One search, then a change in place through the index: a copy out and back in would
        // hash the source twice on every datagram.
        if let index = entries.index(forKey: source) {
            let allowed = entries.values[index].bucket.allow(at: now)
            entries.values[index].lastSeen = now
            return allowed
        }
        if entries.count >= capacity, now - lastSweep >= min(refillTime, 1) {
            lastSweep = now
            let idle = refillTime
            entries = entries.filter { now - $0.value.lastSeen < idle }
        }
        guard entries.count < capacity else { return overflow.allow(at: now) }
        var bucket = TokenBucket(rate: rate, burst: burst)
        let allowed = bucket.allow(at: now)
        entries[source] = Entry(bucket: bucket, lastSeen: now)
        return allowed
    }
}

/// A ring buffer of the last `capacity` values of one stats field.
///
/// Storage is allocated once, at creation; appending overwrites the oldest value in place, so
/// ingesting a sample does not allocate (the engine owns the only reference, so no copy-on-write).
struct SampleWindow: Sendable, Hashable {
    /// The values; only the first `count` slots are meaningful until the window fills.
    private var storage: [Double]
    /// Where the next value goes.
    private var next: Int = 0
    /// How many values the window holds, up to `capacity`.
    private(set) var count: Int = 0

    /// Creates an empty window of `capacity` values (at least one).
    init(capacity: Int) {
        storage = Array(repeating: 0, count: max(capacity, 1))
    }

    /// The most values the window holds.
    var capacity: Int { storage.count }

    /// Whether the window holds `capacity` values.
    var isFull: Bool { count == storage.count }

    /// Adds `value`, dropping the oldest one when full.
    mutating func append(_ value: Double) {
        storage[next] = value
        next = next + 1 == storage.count ? 0 : next + 1
        if count < storage.count { count += 1 }
    }

    /// Forgets every value (the storage is kept).
    mutating func removeAll() {
        next = 0
        count = 0
    }

    /// How many values satisfy `predicate`.
    func count(where predicate: (Double) -> Bool) -> Int {
        var n = 0
        for i in 0..<count where predicate(storage[i]) { n += 1 }
        return n
    }

    /// Whether every value satisfies `predicate` (true when empty).
    func allSatisfy(_ predicate: (Double) -> Bool) -> Bool {
        for i in 0..<count where !predicate(storage[i]) { return false }
        return true
    }

    /// Mean of the values satisfying `predicate`, or 0 when none does.
    func mean(where predicate: (Double) -> Bool) -> Double {
        var sum = 0.0
        var n = 0
        for i in 0..<count where predicate(storage[i]) {
            sum += storage[i]
            n += 1
        }
        return n == 0 ? 0 : sum / Double(n)
    }

    /// Mean of all values, or 0 when empty.
    var mean: Double { mean(where: { _ in true }) }

    /// Population standard deviation of the values (two-pass, for accuracy), or 0 when empty.
    var populationStandardDeviation: Double {
        guard count > 0 else { return 0 }
        let average = mean
        var squares = 0.0
        for i in 0..<count {
            let deviation = storage[i] - average
            squares += deviation * deviation
        }
        return (squares / Double(count)).squareRoot()
    }
}

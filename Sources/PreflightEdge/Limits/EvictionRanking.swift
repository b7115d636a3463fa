/// Who gives up an item first when a shared table is full: the key holding the most items, and
/// among keys holding as many, the one whose oldest item is the oldest.
///
/// Pure: the caller tells each key's count and the number of its oldest item (numbers grow with
/// age, so a smaller one is older) whenever they change. The keys are kept in a ``KeyedHeap`` by
/// rank: ``update(_:count:oldest:)`` costs O(log n) and ``top()`` O(1), for n keys, and memory is
/// one entry per key holding an item.
struct EvictionRanking<Key: Hashable & Sendable>: Sendable {
    /// A key's standing: how many items it holds, and its oldest one's number. Ordered by how
    /// late it gives up an item: the greatest rank gives one up first.
    struct Rank: Hashable, Comparable, Sendable {
        var count: Int
        var oldest: UInt64

        /// Whether `self` gives up an item before `other`.
        func precedes(_ other: Rank) -> Bool {
            count != other.count ? count > other.count : oldest < other.oldest
        }

        static func < (lhs: Rank, rhs: Rank) -> Bool { rhs.precedes(lhs) }
    }

    private var heap = KeyedHeap<Key, Rank>()

    /// Keys ranked now (those holding at least one item).
    var count: Int { heap.count }

    /// The rank `key` has now, `nil` when it holds nothing.
    func rank(of key: Key) -> Rank? { heap.weight(of: key) }

    /// `key` now holds `count` items, the oldest numbered `oldest`; a count of 0 forgets it.
    mutating func update(_ key: Key, count: Int, oldest: UInt64) {
        guard count > 0 else {
            heap.remove(key)
            return
        }
        heap.set(key, weight: Rank(count: count, oldest: oldest))
    }

    /// The key that gives up an item first, `nil` when no key holds any.
    func top() -> Key? { heap.heaviest?.key }
}

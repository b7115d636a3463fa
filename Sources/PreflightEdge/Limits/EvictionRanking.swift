/// Who gives up an item first when a shared table is full: the key holding the most items, and
/// among keys holding as many, the one whose oldest item is the oldest.
///
/// Pure: the caller tells each key's count and the number of its oldest item (numbers grow with
/// age, so a smaller one is older) whenever they change. A binary heap with lazy deletion: a
/// change pushes the key's new rank and leaves its old entry in place; an entry that is no longer
/// its key's rank is dropped when it reaches the top. When stale entries outnumber the live keys
/// the heap is rebuilt from them, so it never holds more than about twice as many entries as
/// keys. ``update(_:count:oldest:)`` and ``top()`` cost O(log n) amortized, for n keys.
struct EvictionRanking<Key: Hashable & Sendable>: Sendable {
    /// A key's standing: how many items it holds, and its oldest one's number.
    struct Rank: Hashable, Sendable {
        var count: Int
        var oldest: UInt64

        /// Whether `self` gives up an item before `other`.
        func precedes(_ other: Rank) -> Bool {
            count != other.count ? count > other.count : oldest < other.oldest
        }
    }

    private struct Entry: Sendable {
        var rank: Rank
        var key: Key
    }

    private var ranks: [Key: Rank] = [:]
    private var heap: [Entry] = []

    /// Keys ranked now (those holding at least one item).
    var count: Int { ranks.count }

    /// The rank `key` has now, `nil` when it holds nothing.
    func rank(of key: Key) -> Rank? { ranks[key] }

    /// `key` now holds `count` items, the oldest numbered `oldest`; a count of 0 forgets it.
    mutating func update(_ key: Key, count: Int, oldest: UInt64) {
        guard count > 0 else {
            ranks.removeValue(forKey: key)
            return
        }
        let rank = Rank(count: count, oldest: oldest)
        guard ranks.updateValue(rank, forKey: key) != rank else { return }
        if heap.count >= 2 * ranks.count + 32 {
            heap = ranks.map { Entry(rank: $0.value, key: $0.key) }
            for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
        } else {
            heap.append(Entry(rank: rank, key: key))
            siftUp(heap.count - 1)
        }
    }

    /// The key that gives up an item first, `nil` when no key holds any.
    mutating func top() -> Key? {
        while let first = heap.first, ranks[first.key] != first.rank {
            let last = heap.removeLast()
            if !heap.isEmpty {
                heap[0] = last
                siftDown(0)
            }
        }
        return heap.first?.key
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].rank.precedes(heap[parent].rank) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            var first = parent
            let left = 2 * parent + 1
            if left < heap.count, heap[left].rank.precedes(heap[first].rank) { first = left }
            if left + 1 < heap.count, heap[left + 1].rank.precedes(heap[first].rank) { first = left + 1 }
            guard first != parent else { return }
            heap.swapAt(parent, first)
            parent = first
        }
    }
}

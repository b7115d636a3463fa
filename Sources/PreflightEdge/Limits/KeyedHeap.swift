/// A binary max-heap of keys by weight, each key at most once, that knows where each key is: the
/// heaviest key in O(1), and setting a key's weight or removing it in O(log n) for n keys.
/// Memory: one slot and one dictionary entry per key. Pure; the shared order of
/// ``FairConnectionTable`` and ``EvictionRanking``.
struct KeyedHeap<Key: Hashable & Sendable, Weight: Comparable & Sendable>: Sendable {
    private struct Slot: Sendable {
        var key: Key
        var weight: Weight
    }

    /// The slots in heap order: every parent at least as heavy as its children.
    private var slots: [Slot] = []
    /// Where each key's slot is.
    private var places: [Key: Int] = [:]

    /// Keys in the heap.
    var count: Int { slots.count }

    /// The heaviest key and its weight (of equal weights, any), `nil` when empty.
    var heaviest: (key: Key, weight: Weight)? { slots.first.map { ($0.key, $0.weight) } }

    /// `key`'s weight, `nil` when it is not in the heap.
    func weight(of key: Key) -> Weight? { places[key].map { slots[$0].weight } }

    /// Puts `key` in with `weight`, or moves it to `weight` if it is in.
    mutating func set(_ key: Key, weight: Weight) {
        guard let index = places[key] else {
            places[key] = slots.count
            slots.append(Slot(key: key, weight: weight))
            siftUp(slots.count - 1)
            return
        }
        let before = slots[index].weight
        slots[index].weight = weight
        if before < weight { siftUp(index) } else { siftDown(index) }
    }

    /// Takes `key` out; nothing if it is not in.
    mutating func remove(_ key: Key) {
        guard let index = places.removeValue(forKey: key) else { return }
        let last = slots.count - 1
        if index != last {
            slots[index] = slots[last]
            places[slots[index].key] = index
        }
        slots.removeLast()
        guard index < slots.count else { return }
        siftDown(index)
        siftUp(index)
    }

    private mutating func siftUp(_ start: Int) {
        var index = start
        while index > 0 {
            let parent = (index - 1) / 2
            guard slots[parent].weight < slots[index].weight else { return }
            swapSlots(parent, index)
            index = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var index = start
        while true {
            var heaviest = index
            let left = 2 * index + 1
            let right = left + 1
            if left < slots.count, slots[heaviest].weight < slots[left].weight { heaviest = left }
            if right < slots.count, slots[heaviest].weight < slots[right].weight { heaviest = right }
            guard heaviest != index else { return }
            swapSlots(index, heaviest)
            index = heaviest
        }
    }

    private mutating func swapSlots(_ first: Int, _ second: Int) {
        slots.swapAt(first, second)
        places[slots[first].key] = first
        places[slots[second].key] = second
    }
}

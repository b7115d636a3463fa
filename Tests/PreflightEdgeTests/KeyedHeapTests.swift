import PreflightCore
@testable import PreflightEdge
import Testing

/// ``KeyedHeap``: against a dictionary model, over seeded random sequences of sets and removals.
@Suite struct KeyedHeapTests {
    @Test func anEmptyHeapHasNoHeaviest() {
        var heap = KeyedHeap<String, Int>()
        #expect(heap.heaviest == nil)
        heap.remove("absent")
        #expect(heap.count == 0)
    }

    @Test func setMovesAKeyBothWays() {
        var heap = KeyedHeap<String, Int>()
        heap.set("a", weight: 1)
        heap.set("b", weight: 5)
        heap.set("c", weight: 3)
        #expect(heap.heaviest?.key == "b")
        heap.set("b", weight: 0)
        #expect(heap.heaviest?.key == "c")
        heap.set("a", weight: 9)
        #expect(heap.heaviest?.key == "a" && heap.heaviest?.weight == 9)
        #expect(heap.count == 3 && heap.weight(of: "b") == 0)
    }

    @Test(arguments: [1 as UInt64, 7, 2024])
    func matchesAModel(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var heap = KeyedHeap<Int, Int>()
        var model: [Int: Int] = [:]
        for _ in 0..<20_000 {
            let key = random.next(below: 64)
            if random.next(below: 4) == 0 {
                heap.remove(key)
                model[key] = nil
            } else {
                let weight = random.next(below: 1000)
                heap.set(key, weight: weight)
                model[key] = weight
            }
            #expect(heap.count == model.count)
            #expect(heap.heaviest?.weight == model.values.max())
            if let heaviest = heap.heaviest { #expect(model[heaviest.key] == heaviest.weight) }
        }
        for (key, weight) in model { #expect(heap.weight(of: key) == weight) }
    }
}

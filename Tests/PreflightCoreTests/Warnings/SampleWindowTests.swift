@testable import PreflightCore
import Testing

@Suite struct SampleWindowTests {
    @Test func keepsTheLastValuesAcrossWraparound() {
        var window = SampleWindow(capacity: 3)
        #expect(window.count == 0 && !window.isFull)
        #expect(window.mean == 0 && window.populationStandardDeviation == 0)
        for value in [1.0, 2, 3, 4, 5] { window.append(value) }
        // Holds 3, 4, 5.
        #expect(window.isFull && window.count == 3)
        #expect(window.mean == 4)
        #expect(window.count(where: { $0 > 3 }) == 2)
        #expect(window.mean(where: { $0 > 3 }) == 4.5)
        #expect(window.allSatisfy { $0 >= 3 })
        #expect(!window.allSatisfy { $0 > 3 })
        // Population sd of 3, 4, 5: sqrt((1 + 0 + 1) / 3).
        #expect(window.populationStandardDeviation == (2.0 / 3).squareRoot())
    }

    @Test func removeAllEmptiesButKeepsCapacity() {
        var window = SampleWindow(capacity: 4)
        for value in [9.0, 9, 9, 9, 9] { window.append(value) }
        window.removeAll()
        #expect(window.count == 0 && window.capacity == 4)
        window.append(2)
        #expect(window.mean == 2 && window.count(where: { $0 == 9 }) == 0)
    }

    @Test func zeroCapacityIsClampedToOne() {
        var window = SampleWindow(capacity: 0)
        window.append(7)
        window.append(8)
        #expect(window.capacity == 1 && window.mean == 8)
    }
}

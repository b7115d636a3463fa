/// One account's calls in the Insights log (``CallEventLog``): each identity's calls oldest
/// first, which identity gives one up first (``EvictionRanking``: the one holding the most), and
/// the account's calls in the order they came, for the account's own oldest.
///
/// A call leaves only as the oldest of its identity, so a call numbered n of identity I is still
/// here exactly when n is at least the number of I's oldest call: the account's order list drops
/// calls already gone lazily, and is compacted when they outnumber those still here. Every
/// operation costs O(log n) amortized, n the account's identities.
struct LoggedCalls: Sendable {
    /// A call and its number (numbers grow with age).
    struct Item: Sendable {
        var number: UInt64
        var callSid: String
    }

    /// A call of the account's order list: its number and its identity.
    private struct Placed: Sendable {
        var number: UInt64
        var identity: String
    }

    /// Identity → its calls, oldest first.
    private var identities: [String: Queue<Item>] = [:]
    private var ranking = EvictionRanking<String>()
    /// The account's calls in the order they came, some perhaps gone.
    private var order = Queue<Placed>()

    /// Calls the account holds.
    private(set) var count = 0

    /// Identity → the calls it holds.
    var counts: [String: Int] { identities.mapValues(\.count) }

    /// Adds the call `callSid`, numbered `number` (greater than every number before), of `identity`.
    mutating func add(_ callSid: String, number: UInt64, identity: String) {
        identities[identity, default: Queue()].append(Item(number: number, callSid: callSid))
        order.append(Placed(number: number, identity: identity))
        count += 1
        rank(identity)
    }

    /// Removes the oldest call of the identity holding the most (the oldest such identity's
    /// among equals).
    /// - Returns: its sid, `nil` when the account holds none.
    mutating func removeOne() -> String? {
        guard let identity = ranking.top(), let item = identities[identity]?.removeFirst() else { return nil }
        count -= 1
        if identities[identity]?.isEmpty == true { identities.removeValue(forKey: identity) }
        rank(identity)
        if order.count > 2 * count + 32 {
            let identities = identities
            order.removeAll { !Self.isHeld($0, in: identities) }
        }
        return item.callSid
    }

    /// The number of the account's oldest call, `nil` when it holds none.
    mutating func oldestNumber() -> UInt64? {
        while let first = order.first, !Self.isHeld(first, in: identities) { _ = order.removeFirst() }
        return order.first?.number
    }

    private static func isHeld(_ placed: Placed, in identities: [String: Queue<Item>]) -> Bool {
        guard let oldest = identities[placed.identity]?.first?.number else { return false }
        return placed.number >= oldest
    }

    private mutating func rank(_ identity: String) {
        let queue = identities[identity]
        ranking.update(identity, count: queue?.count ?? 0, oldest: queue?.first?.number ?? 0)
    }
}

extension LoggedCalls {
    /// A first-in first-out queue on an array: removing the first element moves an index, and the
    /// array gives back the space of removed elements when they are half of it. Amortized O(1).
    struct Queue<Element: Sendable>: Sendable {
        private var elements: [Element] = []
        private var head = 0

        /// Elements queued.
        var count: Int { elements.count - head }
        /// Whether none is queued.
        var isEmpty: Bool { count == 0 }
        /// The oldest element.
        var first: Element? { head < elements.count ? elements[head] : nil }

        /// Queues `element` last.
        mutating func append(_ element: Element) {
            elements.append(element)
        }

        /// Takes the oldest element.
        mutating func removeFirst() -> Element? {
            guard head < elements.count else { return nil }
            let element = elements[head]
            head += 1
            if head == elements.count {
                elements.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 32, head * 2 >= elements.count {
                elements.removeFirst(head)
                head = 0
            }
            return element
        }

        /// Removes every element that `shouldBeRemoved` picks, keeping the others' order.
        mutating func removeAll(where shouldBeRemoved: (Element) -> Bool) {
            elements = elements[head...].filter { !shouldBeRemoved($0) }
            head = 0
        }
    }
}

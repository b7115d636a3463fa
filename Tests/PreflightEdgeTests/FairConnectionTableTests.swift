import PreflightCore
@testable import PreflightEdge
import Testing

/// ``FairConnectionTable``, the pure core of the HTTP listener's caps: sources are letters,
/// connections numbers.
@Suite struct FairConnectionTableTests {
    typealias Table = FairConnectionTable<String, Int>

    /// A table's decisions, told apart without their tickets.
    enum Outcome: Equatable {
        case admitted
        case preempted(Int)
        case refusedAtSourceCap
        case refusedFull
    }

    /// Admits `connection` from `source` and keeps the ticket of an admitted one in `tickets`.
    static func admit(_ table: inout Table, _ connection: Int, from source: String, tickets: inout [Int: Table.Ticket]) -> Outcome {
        switch table.admit(connection, from: source) {
        case .admitted(let ticket):
            tickets[connection] = ticket
            return .admitted
        case .admittedPreempting(let ticket, let victim):
            tickets[connection] = ticket
            return .preempted(victim)
        case .refusedAtSourceCap: return .refusedAtSourceCap
        case .refusedFull: return .refusedFull
        }
    }

    @Test func admitsUntilACapThenRefusesAtTheSourceCap() {
        var table = Table(maximumConnections: 10, maximumConnectionsPerSource: 2)
        var tickets: [Int: Table.Ticket] = [:]
        let outcomes = [(1, "a"), (2, "a"), (3, "a"), (4, "b")].map { Self.admit(&table, $0.0, from: $0.1, tickets: &tickets) }
        #expect(outcomes == [.admitted, .admitted, .refusedAtSourceCap, .admitted])
        #expect(table.count == 3 && table.connections(from: "a") == 2 && table.sourceCount == 2)
        // A release frees the source's place; a second release of the same ticket changes nothing.
        #expect(tickets[1].map { table.release($0) } == true)
        #expect(tickets[1].map { table.release($0) } == false)
        #expect(table.count == 2)
        #expect(Self.admit(&table, 5, from: "a", tickets: &tickets) == .admitted)
    }

    @Test func aFullTableGivesTheHeaviestSourcesNewestConnectionToALighterSource() {
        var table = Table(maximumConnections: 6, maximumConnectionsPerSource: 64)
        var tickets: [Int: Table.Ticket] = [:]
        // a holds 1, 2, 3, 4 (4 the newest); b holds 5, 6.
        for connection in 1...4 { _ = Self.admit(&table, connection, from: "a", tickets: &tickets) }
        for connection in 5...6 { _ = Self.admit(&table, connection, from: "b", tickets: &tickets) }
        // c holds none: a's newest goes. Then a (3) and b (2): c's second takes a's 3.
        #expect(Self.admit(&table, 7, from: "c", tickets: &tickets) == .preempted(4))
        #expect(Self.admit(&table, 8, from: "c", tickets: &tickets) == .preempted(3))
        // Now a 2, b 2, c 2: nobody is lighter than the heaviest.
        for source in ["a", "b", "c"] {
            #expect(Self.admit(&table, 9, from: source, tickets: &tickets) == .refusedFull, "\(source)")
        }
        // d, new, takes the newest connection of the sources tied at 2: c's 8.
        #expect(Self.admit(&table, 10, from: "d", tickets: &tickets) == .preempted(8))
        #expect(table.count == 6)
        #expect(["a", "b", "c", "d"].map { table.connections(from: $0) } == [2, 2, 1, 1])
        // The preempted connections' own releases change nothing; a live one's does.
        #expect(tickets[4].map { table.release($0) } == false)
        #expect(tickets[8].map { table.release($0) } == false)
        #expect(table.count == 6)
        #expect(tickets[1].map { table.release($0) } == true)
        #expect(table.count == 5)
    }

    /// The tie rule: of the sources that hold the most, the one whose newest connection is newest
    /// gives way, so a source that keeps opening connections is hit before one that holds steady.
    @Test func betweenTiedSourcesTheOneThatOpenedLastGivesWay() {
        var table = Table(maximumConnections: 6, maximumConnectionsPerSource: 64)
        var tickets: [Int: Table.Ticket] = [:]
        // office: 1, 2, 3 (long-running calls); churner: 4, 5, 6.
        for connection in 1...3 { _ = Self.admit(&table, connection, from: "office", tickets: &tickets) }
        for connection in 4...6 { _ = Self.admit(&table, connection, from: "churner", tickets: &tickets) }
        // The churner closes its oldest and opens another: still 3 each, its newest the newest.
        #expect(tickets[4].map { table.release($0) } == true)
        #expect(Self.admit(&table, 7, from: "churner", tickets: &tickets) == .admitted)
        #expect(Self.admit(&table, 8, from: "light", tickets: &tickets) == .preempted(7))
        // The office is the heaviest now (3 against 2): it gives its newest (3), never its oldest.
        #expect(Self.admit(&table, 9, from: "light2", tickets: &tickets) == .preempted(3))
        // Tied at 2: the churner's newest (6) is newer than the office's (2).
        #expect(Self.admit(&table, 10, from: "light3", tickets: &tickets) == .preempted(6))
        #expect(Self.admit(&table, 11, from: "light4", tickets: &tickets) == .preempted(2))
        // Everyone holds one: the newest (light4's) goes, the office's first connection stays.
        #expect(Self.admit(&table, 12, from: "light5", tickets: &tickets) == .preempted(11))
        #expect(table.connections(from: "office") == 1 && table.count == 6 && table.sourceCount == 6)
        #expect(tickets[1].map { table.release($0) } == true)
    }

    /// Sixteen churning sources fill the table; a light client connecting now and then always
    /// gets in and is never the one that gives way.
    @Test func churnFromManySourcesNeitherKeepsOutNorCutsALightClient() {
        var table = Table(maximumConnections: 40, maximumConnectionsPerSource: 64)
        var tickets: [Int: Table.Ticket] = [:]
        var random = SplitMix64(seed: 7)
        var attackerOpen: [Int] = []
        var lightTicket: Table.Ticket?
        var lightTries = 0, lightAdmitted = 0, lightCut = 0, preemptions = 0
        for round in 1...20_000 {
            // An attacker source tries one more; every fourth round one of its connections closes.
            switch Self.admit(&table, round, from: "attacker\(random.next(below: 16))", tickets: &tickets) {
            case .admitted: attackerOpen.append(round)
            case .preempted(let victim):
                preemptions += 1
                attackerOpen.append(round)
                attackerOpen.removeAll { $0 == victim }
                tickets[victim] = nil
                if victim < 0 { lightCut += 1 }
            case .refusedAtSourceCap, .refusedFull: break
            }
            if round % 4 == 0, !attackerOpen.isEmpty {
                let closing = attackerOpen.remove(at: random.next(below: attackerOpen.count))
                if let ticket = tickets.removeValue(forKey: closing) { table.release(ticket) }
            }
            // The light client (negative numbers) holds one connection for 10 rounds at a time.
            if round % 10 == 0 {
                if let lightTicket { table.release(lightTicket) }
                lightTries += 1
                switch Self.admit(&table, -round, from: "light", tickets: &tickets) {
                case .admitted, .preempted:
                    lightAdmitted += 1
                    lightTicket = tickets[-round]
                case .refusedAtSourceCap, .refusedFull: lightTicket = nil
                }
            }
            #expect(table.sourceCount <= table.count && table.count <= 40)
        }
        #expect(lightAdmitted == lightTries && lightCut == 0, "light client: \(lightAdmitted) of \(lightTries) admitted, \(lightCut) cut")
        #expect(preemptions > 0)
        // The attackers share what the light client leaves, about 39 / 16 each.
        let counts = (0..<16).map { table.connections(from: "attacker\($0)") }
        print("fair table: light client \(lightAdmitted) of \(lightTries) admitted; \(preemptions) preemptions; attackers hold \(counts)")
        #expect(counts.reduce(0, +) >= 38, "\(counts)")
    }

    /// When every source holds one connection (more sources than places), a newcomer takes the
    /// newest connection: the established ones stay.
    @Test func withOneConnectionPerSourceNewcomersTakeTheNewestPlace() {
        var table = Table(maximumConnections: 4, maximumConnectionsPerSource: 64)
        var tickets: [Int: Table.Ticket] = [:]
        for connection in 1...4 { _ = Self.admit(&table, connection, from: "s\(connection)", tickets: &tickets) }
        #expect(Self.admit(&table, 5, from: "s5", tickets: &tickets) == .preempted(4))
        #expect(Self.admit(&table, 6, from: "s6", tickets: &tickets) == .preempted(5))
        #expect(Self.admit(&table, 7, from: "s1", tickets: &tickets) == .refusedFull)
        #expect(["s1", "s2", "s3", "s6"].allSatisfy { table.connections(from: $0) == 1 })
        #expect(table.sourceCount == 4)
    }

    /// Two sources a connection apart do not take each other's connections in turn: a preemption
    /// needs a gap of two (or a source with none), so each one narrows the gap.
    @Test func sourcesOneApartDoNotFlipFlop() {
        var table = Table(maximumConnections: 5, maximumConnectionsPerSource: 64)
        var tickets: [Int: Table.Ticket] = [:]
        for connection in 1...3 { _ = Self.admit(&table, connection, from: "a", tickets: &tickets) }
        for connection in 4...5 { _ = Self.admit(&table, connection, from: "b", tickets: &tickets) }
        // b holds 2, a holds 3: a newcomer of b would only make b the heavier one.
        #expect(Self.admit(&table, 6, from: "b", tickets: &tickets) == .refusedFull)
        #expect(table.connections(from: "a") == 3 && table.connections(from: "b") == 2)
        // A source with none still gets a place from the heaviest.
        #expect(Self.admit(&table, 7, from: "c", tickets: &tickets) == .preempted(3))
    }

    /// Random admissions, releases and preemptions against a table that searches every source:
    /// the same decisions, and nothing is left behind once everything is released.
    @Test func agreesWithAnExhaustiveSearch() {
        var table = Table(maximumConnections: 30, maximumConnectionsPerSource: 6)
        var model: [String: [Int]] = [:]  // each source's connections, newest last
        var tickets: [Int: Table.Ticket] = [:]
        var random = SplitMix64(seed: 2024)
        for connection in 1...30_000 {
            if random.next(below: 3) == 0, !tickets.isEmpty {
                let closing = tickets.keys.sorted()[random.next(below: tickets.count)]
                let ticket = tickets.removeValue(forKey: closing)
                #expect(ticket.map { table.release($0) } == true)
                for source in model.keys { model[source]?.removeAll { $0 == closing } }
                model = model.filter { !$0.value.isEmpty }
            }
            let source = "s\(random.next(below: 12))"
            let held = model[source]?.count ?? 0
            let total = model.values.map(\.count).reduce(0, +)
            // The exhaustive rule: the heaviest source, ties to the newest newest connection.
            let heaviest = model.max { ($0.value.count, $0.value.last ?? 0) < ($1.value.count, $1.value.last ?? 0) }
            let expected: Outcome
            if held >= 6 {
                expected = .refusedAtSourceCap
            } else if total < 30 {
                expected = .admitted
            } else if let heaviest, heaviest.value.count >= held + 2 || (held == 0 && heaviest.value.count > 0),
                let victim = heaviest.value.last
            {
                expected = .preempted(victim)
            } else {
                expected = .refusedFull
            }
            let outcome = Self.admit(&table, connection, from: source, tickets: &tickets)
            #expect(outcome == expected, "connection \(connection) from \(source)")
            guard outcome == expected else { return }
            if case .preempted(let victim) = outcome {
                tickets[victim] = nil
                for key in model.keys { model[key]?.removeAll { $0 == victim } }
                model = model.filter { !$0.value.isEmpty }
            }
            switch outcome {
            case .admitted, .preempted: model[source, default: []].append(connection)
            case .refusedAtSourceCap, .refusedFull: break
            }
            #expect(table.count == model.values.map(\.count).reduce(0, +))
            #expect(table.sourceCount == model.count)
        }
        for ticket in tickets.values { table.release(ticket) }
        #expect(table.count == 0 && table.sourceCount == 0)
    }
}

extension SplitMix64 {
    /// A number in `0..<bound`, the same on every run of a seed.
    mutating func next(below bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}

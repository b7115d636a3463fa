/// The connections open in all and per source, and what becomes of one more: the decisions of
/// the HTTP listener's caps without any I/O (``HTTPConnectionLimiter`` holds one behind a lock
/// and closes what it is told to).
///
/// The rules, for a new connection from a source that holds `c` connections:
/// - `c` at the per-source maximum: refused.
/// - Room in all: admitted.
/// - The table full: admitted in place of one connection of a heaviest source, which the caller
///   closes, if that source holds at least two more than `c`, or `c` is 0 and it holds any (a
///   source with no place always gets one from the heaviest); refused otherwise. The gap of two
///   makes each preemption narrow the difference between two sources: at a difference of one it
///   would only swap which of them is heavier, and two sources holding several connections each
///   would take each other's live sessions in turn for as long as they reconnect.
///
/// So a full table is shared out fairly instead of first come, first served: whoever holds the
/// most gives way to whoever holds fewer, and an attacker with many sources who churns
/// connections to catch each free place no longer keeps a light client out. Its churn makes it
/// heavy, and a heavy source's newcomers are refused while a light one's get in.
///
/// Which connection gives way (the victim): the newest connection among the heaviest sources.
/// Within the heaviest source, the newest, because a client's oldest connections are its running
/// sessions and its newest are what an attacker's churn just opened. Between tied sources (the
/// same count), the one whose newest connection is newest, for the same reason: a source that
/// has held its connections for a while (an office behind one NAT with its calls running) is
/// spared, one that keeps opening more is hit. The cost of that choice: when every source holds
/// one connection (an attacker with more sources than the table has places, e.g. more /64s than
/// 2048), a newcomer takes the newest connection, so established sessions stay and newcomers
/// take each other's places; the listener can do no better there by counting, and a shorter
/// IPv6 prefix (``EdgeHTTPLimits/ipv6PrefixLength``) makes such an attacker one source again.
///
/// Cost: the sources are kept in a binary heap ordered by (connections held, newest connection),
/// so finding the victim is O(1) and every admission, release or preemption is O(log S) for S
/// sources (at most 11 levels for the default 2048 connections), plus O(c) to take a connection
/// out of the middle of its source's list (at most the per-source cap, 64 by default). Memory:
/// one entry per open connection and one per source that holds one; a source holding none is
/// forgotten.
struct FairConnectionTable<Source: Hashable & Sendable, Connection: Sendable>: Sendable {
    /// An admitted connection, for its ``release(_:)``.
    struct Ticket: Hashable, Sendable {
        /// The source it counts under.
        let source: Source
        /// Its place in the order of admissions: a later one is larger.
        let number: UInt64
    }

    /// What becomes of a new connection.
    enum Decision: Sendable {
        /// Admitted: ``release(_:)`` with the ticket once it closes.
        case admitted(Ticket)
        /// Admitted in place of `victim`, which the caller closes; the victim's release is
        /// already done (a later ``release(_:)`` of its ticket changes nothing).
        case admittedPreempting(Ticket, victim: Connection)
        /// Refused: its source holds the per-source maximum.
        case refusedAtSourceCap
        /// Refused: the table is full and its source holds as many as any.
        case refusedFull
    }

    private struct Held: Sendable {
        var number: UInt64
        var connection: Connection
    }

    /// How heavy a source is: more connections first, then the newer newest connection.
    private struct Weight: Comparable, Sendable {
        var count: Int
        var newest: UInt64

        static func < (lhs: Weight, rhs: Weight) -> Bool {
            (lhs.count, lhs.newest) < (rhs.count, rhs.newest)
        }
    }

    /// Connections open at once, in all.
    let maximumConnections: Int
    /// Connections open at once from one source.
    let maximumConnectionsPerSource: Int
    /// Connections open now.
    private(set) var count = 0
    /// Each source's connections in the order they were admitted: the newest last.
    private var entries: [Source: [Held]] = [:]
    /// The sources by ``Weight``: the heaviest first.
    private var heap = KeyedHeap<Source, Weight>()
    private var lastNumber: UInt64 = 0

    /// An empty table with these caps (each at least 1).
    init(maximumConnections: Int, maximumConnectionsPerSource: Int) {
        self.maximumConnections = max(1, maximumConnections)
        self.maximumConnectionsPerSource = max(1, maximumConnectionsPerSource)
    }

    /// Sources holding connections now.
    var sourceCount: Int { entries.count }

    /// Connections `source` holds now.
    func connections(from source: Source) -> Int { entries[source]?.count ?? 0 }

    /// Decides on `connection` from `source` and counts it if admitted.
    mutating func admit(_ connection: Connection, from source: Source) -> Decision {
        let held = connections(from: source)
        guard held < maximumConnectionsPerSource else { return .refusedAtSourceCap }
        guard count >= maximumConnections else { return .admitted(add(connection, from: source)) }
        guard let heaviest = heap.heaviest, heaviest.weight.count >= held + 2 || (held == 0 && heaviest.weight.count > 0),
            let victim = removeNewest(of: heaviest.key)
        else {
            return .refusedFull
        }
        return .admittedPreempting(add(connection, from: source), victim: victim)
    }

    /// Forgets an admitted connection that closed.
    /// - Returns: whether it was still counted (`false` after a preemption or a second release).
    @discardableResult
    mutating func release(_ ticket: Ticket) -> Bool {
        guard let index = entries.index(forKey: ticket.source),
            let position = Self.position(of: ticket.number, in: entries.values[index])
        else { return false }
        entries.values[index].remove(at: position)
        count -= 1
        settle(ticket.source)
        return true
    }

    /// Where connection `number` is in `held`. Numbers grow with each admission, so a source's
    /// list is sorted: a binary search.
    private static func position(of number: UInt64, in held: [Held]) -> Int? {
        var lower = 0
        var upper = held.count
        while lower < upper {
            let middle = (lower + upper) / 2
            if held[middle].number < number { lower = middle + 1 } else { upper = middle }
        }
        return lower < held.count && held[lower].number == number ? lower : nil
    }

    // MARK: Sources and their connections

    private mutating func add(_ connection: Connection, from source: Source) -> Ticket {
        lastNumber &+= 1
        count += 1
        entries[source, default: []].append(Held(number: lastNumber, connection: connection))
        settle(source)
        return Ticket(source: source, number: lastNumber)
    }

    /// Takes `source`'s newest connection out of the table.
    private mutating func removeNewest(of source: Source) -> Connection? {
        guard let index = entries.index(forKey: source), let newest = entries.values[index].popLast() else { return nil }
        count -= 1
        settle(source)
        return newest.connection
    }

    /// Puts `source` where its connections now place it: forgotten when it holds none, else
    /// moved in the heap by its new weight.
    private mutating func settle(_ source: Source) {
        guard let held = entries[source] else { return }
        guard let newest = held.last else {
            entries[source] = nil
            heap.remove(source)
            return
        }
        heap.set(source, weight: Weight(count: held.count, newest: newest.number))
    }
}

import NIOCore
import Synchronization

/// The HTTP listener's shared bookkeeping: connections open in all and per source
/// (``ConnectionSource``: an IPv4 address, an IPv6 /64 by default), the fair sharing of a full
/// listener (``FairConnectionTable`` decides, this closes), and counts of what the limits refused,
/// preempted or closed. One per edge, shared by every connection's handlers across event loops.
final class HTTPConnectionLimiter: Sendable {
    /// What the limits did so far.
    struct Counters: Sendable, Hashable {
        /// Connections open now.
        var open = 0
        /// Connections closed at once because a cap was reached.
        var refused = 0
        /// Admitted connections closed to make room for a connection from a lighter source.
        var preempted = 0
        /// Connections closed because the request head did not arrive in time.
        var headerTimeouts = 0
        /// Connections closed because their request head was over ``EdgeHTTPLimits/maximumHeadLength``.
        var headsTooLarge = 0
        /// Connections closed because nothing was read or written for the idle timeout.
        var idleTimeouts = 0
    }

    /// The table of open connections, each with its channel (to close it when it is preempted).
    typealias Table = FairConnectionTable<ConnectionSource, any Channel>
    /// What an admitted connection is released with.
    typealias Ticket = Table.Ticket

    private struct State {
        var counters = Counters()
        var table: Table
    }

    /// Connections allowed in all.
    let maximumConnections: Int
    /// Connections allowed from one source.
    let maximumConnectionsPerAddress: Int
    /// The bits of an IPv6 address that name its source.
    let ipv6PrefixLength: Int
    private let state: Mutex<State>

    init(maximumConnections: Int, maximumConnectionsPerAddress: Int, ipv6PrefixLength: Int = 64) {
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
        self.ipv6PrefixLength = ipv6PrefixLength
        state = Mutex(State(table: Table(
            maximumConnections: maximumConnections, maximumConnectionsPerSource: maximumConnectionsPerAddress)))
    }

    /// The counters now.
    var counters: Counters { state.withLock { $0.counters } }

    /// The source a connection from `address` counts under.
    func source(of address: SocketAddress?) -> ConnectionSource {
        ConnectionSource(address, ipv6PrefixLength: ipv6PrefixLength)
    }

    /// Counts `channel`, a new connection from `source`, unless the caps refuse it; a refusal is
    /// counted. When the listener is full and `source` holds fewer connections than the heaviest
    /// source, the newest connection of a heaviest source is closed to make room, and counted as
    /// preempted (its handler's later ``release(_:)`` changes nothing).
    /// - Returns: the connection's ticket for ``release(_:)``, or `nil` when it must be closed.
    func admit(_ channel: any Channel, from source: ConnectionSource) -> Ticket? {
        let (ticket, victim) = state.withLock { state -> (Ticket?, (any Channel)?) in
            switch state.table.admit(channel, from: source) {
            case .admitted(let ticket):
                state.counters.open = state.table.count
                return (ticket, nil)
            case .admittedPreempting(let ticket, let victim):
                state.counters.preempted += 1
                state.counters.open = state.table.count
                return (ticket, victim)
            case .refusedAtSourceCap, .refusedFull:
                state.counters.refused += 1
                return (nil, nil)
            }
        }
        // Outside the lock: the victim may be on this event loop, where the close runs at once
        // and its handler's release takes the lock. On another loop, `close` is handed over.
        victim?.close(promise: nil)
        return ticket
    }

    /// Forgets an admitted connection that closed; nothing for one already preempted.
    func release(_ ticket: Ticket) {
        state.withLock { state in
            state.table.release(ticket)
            state.counters.open = state.table.count
        }
    }

    /// Counts a connection closed for its request head's timeout.
    func countHeaderTimeout() {
        state.withLock { $0.counters.headerTimeouts += 1 }
    }

    /// Counts a connection closed for a request head over the cap.
    func countHeadTooLarge() {
        state.withLock { $0.counters.headsTooLarge += 1 }
    }

    /// Counts a connection closed for being idle.
    func countIdleTimeout() {
        state.withLock { $0.counters.idleTimeouts += 1 }
    }

    /// Connections open now from `source`.
    func openConnections(from source: ConnectionSource) -> Int {
        state.withLock { $0.table.connections(from: source) }
    }

    /// Sources holding connections now.
    var sourceCount: Int { state.withLock { $0.table.sourceCount } }
}

import Synchronization

/// The HTTP listener's shared bookkeeping: connections open in all and per source address
/// (``EdgeHTTPLimits``), and counts of what the limits refused or closed. One per edge, shared by
/// every connection's handlers across event loops.
final class HTTPConnectionLimiter: Sendable {
    /// What the limits did so far.
    struct Counters: Sendable, Hashable {
        /// Connections open now.
        var open = 0
        /// Connections closed at once because a cap was reached.
        var refused = 0
        /// Connections closed because the request head did not arrive in time.
        var headerTimeouts = 0
        /// Connections closed because nothing was read or written for the idle timeout.
        var idleTimeouts = 0
    }

    private struct State {
        var counters = Counters()
        var perAddress: [String: Int] = [:]
    }

    /// Connections allowed in all.
    let maximumConnections: Int
    /// Connections allowed from one source address.
    let maximumConnectionsPerAddress: Int
    private let state = Mutex(State())

    init(maximumConnections: Int, maximumConnectionsPerAddress: Int) {
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
    }

    /// The counters now.
    var counters: Counters { state.withLock { $0.counters } }

    /// Counts a new connection from `address` unless a cap is reached; a refusal is counted.
    /// - Returns: whether the connection may stay open (then ``release(_:)`` must follow).
    func admit(_ address: String) -> Bool {
        state.withLock { state in
            let fromAddress = state.perAddress[address, default: 0]
            guard state.counters.open < maximumConnections, fromAddress < maximumConnectionsPerAddress else {
                state.counters.refused += 1
                return false
            }
            state.counters.open += 1
            state.perAddress[address] = fromAddress + 1
            return true
        }
    }

    /// Forgets an admitted connection that closed.
    func release(_ address: String) {
        state.withLock { state in
            state.counters.open = max(0, state.counters.open - 1)
            let remaining = state.perAddress[address, default: 0] - 1
            state.perAddress[address] = remaining > 0 ? remaining : nil
        }
    }

    /// Counts a connection closed for its request head's timeout.
    func countHeaderTimeout() {
        state.withLock { $0.counters.headerTimeouts += 1 }
    }

    /// Counts a connection closed for being idle.
    func countIdleTimeout() {
        state.withLock { $0.counters.idleTimeouts += 1 }
    }

    /// Connections open now from `address`.
    func openConnections(from address: String) -> Int {
        state.withLock { $0.perAddress[address, default: 0] }
    }
}

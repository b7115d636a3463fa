/// The fates of loss probes: requests sent once each, never retransmitted, over the path a test
/// measures, whose answers prove a round trip (``ICEAgent/startLossProbes(count:interval:now:)``
/// sends them as STUN Binding requests on the selected pair). Pure: every time is passed in.
///
/// A probe is decided once an answer came to a probe sent ``margin`` or more after it: answered
/// if its own answer came before that, lost if not. As the round trips' ``RoundTripLoss/settleMargin``
/// does, this tolerates half a second of reordering, and which probes are decided depends on
/// when they were sent, never on their own fate (deciding answered probes at once would count
/// answers before the losses beside them). The probes of the last half second before the newest
/// answer stay undecided; an answer to a probe already decided is not counted. No timer decides
/// anything, so a client that stalls with answers unread in its socket counts nothing lost.
public struct ProbeFates: Sendable, Hashable {
    /// How much later a probe whose answer came must have been sent for a probe to be decided:
    /// 0.5 s.
    public static let margin = 0.5

    struct Pending: Sendable, Hashable {
        var id: STUNTransactionID
        var sentAt: Double
        var answered = false
    }

    /// Probes sent.
    public private(set) var sent = 0
    /// Probes whose fate is decided (answered or lost).
    public private(set) var decided = 0
    /// Of those, the ones never answered.
    public private(set) var lost = 0
    /// Runs of consecutive lost probes among the decided ones.
    public private(set) var lossRuns = 0

    /// The probes not yet decided, oldest first.
    private var pending: [Pending] = []
    private var lastDecidedWasLost = false

    /// Creates an empty record.
    public init() {}

    /// The mean length of a loss run; 1 without losses.
    public var meanLossRun: Double { lossRuns > 0 ? Double(lost) / Double(lossRuns) : 1 }

    /// Whether `id` is a probe sent, not yet answered and not yet decided.
    public func isAwaited(_ id: STUNTransactionID) -> Bool {
        pending.contains { $0.id == id && !$0.answered }
    }

    /// Records a probe sent with `id` at `now`.
    public mutating func recordSent(_ id: STUNTransactionID, at now: Double) {
        sent += 1
        pending.append(Pending(id: id, sentAt: now))
    }

    /// Records the answer to probe `id`, and decides the probes sent ``margin`` or more before it.
    /// - Returns: whether it answered a probe still undecided (else it is not counted).
    @discardableResult
    public mutating func recordAnswer(_ id: STUNTransactionID) -> Bool {
        guard let index = pending.firstIndex(where: { $0.id == id && !$0.answered }) else { return false }
        pending[index].answered = true
        // A microsecond's slack: send times 20 ms apart are not exact in binary.
        let through = pending[index].sentAt - Self.margin + 1e-6
        while let first = pending.first, first.sentAt <= through {
            pending.removeFirst()
            decided += 1
            if !first.answered {
                lost += 1
                if !lastDecidedWasLost { lossRuns += 1 }
            }
            lastDecidedWasLost = !first.answered
        }
        return true
    }

    /// Forgets the probes still undecided (the path they went on was left): their fate says
    /// nothing about the path measured now.
    public mutating func abandonPending() {
        pending.removeAll()
        lastDecidedWasLost = false
    }
}

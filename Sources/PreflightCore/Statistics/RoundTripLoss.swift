/// The fate of each packet's round trip, from the original sequence numbers the echoes carry:
/// a packet whose echo came back made the round trip, one whose echo did not (lost on the way up
/// or on the way down) did not. Counts them, and the runs of consecutive losses, which tell
/// bursty loss from random loss (the loss estimate's uncertainty grows with the burst length).
///
/// A packet is decided once the echo of a packet ``settleMargin`` newer has arrived: echoes
/// reordered by less than that are not counted lost. Sequence numbers wrap (RFC 3550).
public struct RoundTripLoss: Sendable, Hashable {
    /// How many newer packets' echoes must arrive before a packet's fate is decided: 25 (0.5 s
    /// at 20 ms), more than the reordering of a path with ±60 ms jitter each way.
    public static let settleMargin = 25
    static let windowSize = 1024

    /// Packets whose round trip is decided.
    public private(set) var decided = 0
    /// Of those, the ones whose echo never came.
    public private(set) var lost = 0
    /// Runs of consecutive lost packets among the decided ones.
    public private(set) var lossRuns = 0

    private var base: UInt16 = 0
    private var highest = -1
    private var decidedThrough = -1
    private var lastDecidedWasLost = false
    private var echoed = [Bool](repeating: false, count: RoundTripLoss.windowSize)

    /// Creates an empty record.
    public init() {}

    /// The mean length of a loss run; 1 without losses.
    public var meanLossRun: Double { lossRuns > 0 ? Double(lost) / Double(lossRuns) : 1 }

    /// Records the echo of the packet sent with `sequence`.
    public mutating func recordEcho(of sequence: UInt16) {
        if highest < 0 {
            base = sequence
            highest = 0
            echoed[0] = true
            return
        }
        let extended = highest + Int(Int16(bitPattern: sequence &- (base &+ UInt16(truncatingIfNeeded: highest))))
        // Decided already (a late duplicate or an echo later than the margin), or before the start.
        guard extended > decidedThrough, extended >= 0 else { return }
        if extended > highest {
            // What the jump pushes out of the window is decided first, on the flags it had.
            decide(through: extended - Self.windowSize)
            for position in (highest + 1)...min(extended, highest + Self.windowSize) {
                echoed[position % Self.windowSize] = false
            }
            highest = extended
        }
        echoed[extended % Self.windowSize] = true
        decide(through: highest - Self.settleMargin)
    }

    /// Decides every packet up to `limit`; one newer than every echo is lost.
    private mutating func decide(through limit: Int) {
        while decidedThrough < limit {
            decidedThrough += 1
            let wasLost = decidedThrough > highest ? true : !echoed[decidedThrough % Self.windowSize]
            decided += 1
            if wasLost {
                lost += 1
                if !lastDecidedWasLost { lossRuns += 1 }
            }
            lastDecidedWasLost = wasLost
        }
    }
}

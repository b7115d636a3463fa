/// What the ``ImpairmentRelay`` does to one direction's datagrams. Every property defaults to
/// "nothing": no delay, no loss, no duplication, no reordering.
public struct Impairment: Sendable, Hashable {
    /// Base one-way delay added to every datagram; 0 by default.
    public var delay: Duration
    /// Each datagram's delay is uniform in `delay ± jitter` (clipped at 0), as netem's; 0 by default.
    public var jitter: Duration
    /// Whether a datagram never leaves before the one ahead of it, so that jitter does not
    /// reorder; `true` by default. ``reordering`` reorders regardless.
    public var fifo: Bool
    /// Independent random loss, 0…1; 0 by default.
    public var loss: Double
    /// Bursty loss on top of ``loss``; none by default.
    public var burst: GilbertElliott?
    /// Probability that a datagram is sent twice, 0…1; 0 by default.
    public var duplication: Double
    /// Probability that a datagram is held back by ``reorderDelay`` so that later ones overtake it, 0…1; 0 by default.
    public var reordering: Double
    /// How long a reordered datagram is held back; 50 ms by default.
    public var reorderDelay: Duration

    /// Creates an impairment; see each property for its default.
    public init(
        delay: Duration = .zero, jitter: Duration = .zero, fifo: Bool = true, loss: Double = 0,
        burst: GilbertElliott? = nil, duplication: Double = 0, reordering: Double = 0,
        reorderDelay: Duration = .milliseconds(50)
    ) {
        self.delay = delay
        self.jitter = jitter
        self.fifo = fifo
        self.loss = loss
        self.burst = burst
        self.duplication = duplication
        self.reordering = reordering
        self.reorderDelay = reorderDelay
    }

    /// No impairment.
    public static let none = Impairment()
}

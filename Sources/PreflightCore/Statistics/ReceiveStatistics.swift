/// Receive statistics of one RTP stream (one SSRC): RFC 3550 sequence validation, loss,
/// duplicates, reordering and interarrival jitter.
///
/// - Sequence validation is RFC 3550 Appendix A.1 (`update_seq`): a source is valid after
///   ``minSequential`` consecutive packets (probation; the packets before the last one are not
///   counted, as in A.1), sequence numbers are extended with a wrap counter, a jump of
///   ``maxDropout`` or more forward (or more than ``maxMisorder`` backward) is ignored unless the
///   very next packet follows it, in which case the source is taken to have restarted and every
///   counter starts again from that packet.
/// - Unlike A.1, duplicates are not counted as received: a 1024-wide bitmap of recently received
///   extended sequence numbers (inline, no heap storage) tells a duplicate from a late packet.
///   ``duplicates`` and ``reordered`` are counted separately and are not loss.
/// - A late packet older than the first counted packet lowers the base, so it is expected too.
/// - ``lost`` = ``expected`` − ``received``, clamped at 0 (RFC 3550 §6.4.1).
/// - Jitter is RFC 3550 §6.4.1 / A.8, J += (|D| − J)/16, in RTP timestamp units, with D taken
///   against the previous packet in order of arrival ("not necessarily in sequence"): late packets
///   update it, duplicates do not.
///
/// ``record(sequenceNumber:rtpTimestamp:arrival:clockRate:)`` does not allocate.
public struct ReceiveStatistics: Sendable, Hashable {
    /// Consecutive packets needed before a source is valid (RFC 3550 A.1 `MIN_SEQUENTIAL`).
    public static let defaultMinSequential = 2
    /// Largest forward jump treated as loss rather than as a bad jump (A.1 `MAX_DROPOUT`), packets.
    public static let maxDropout: UInt16 = 3000
    /// Largest backward distance treated as reordering rather than as a bad jump (A.1 `MAX_MISORDER`), packets.
    public static let maxMisorder: UInt16 = 100
    /// Width of the duplicate-detection window, in sequence numbers.
    public static let windowSize = 1024

    @usableFromInline static let sequenceModulus = 65_536
    @usableFromInline static let noBadSequence = 65_537
    @usableFromInline static let windowWords = windowSize / 64

    /// Consecutive packets required to leave probation (at least 1; 1 validates the first packet).
    public let minSequential: Int

    // RFC 3550 A.1 state.
    @usableFromInline var maxSequence: UInt16 = 0
    @usableFromInline var cycles: Int = 0
    @usableFromInline var baseExtended: Int = 0
    @usableFromInline var maxExtended: Int = 0
    @usableFromInline var badSequence: Int = ReceiveStatistics.noBadSequence
    @usableFromInline var probation: Int = 0
    @usableFromInline var started = false
    @usableFromInline var validated = false
    @usableFromInline var expectedPrior: Int = 0
    @usableFromInline var receivedPrior: Int = 0

    /// Distinct packets counted since the source was validated (or last restarted); duplicates excluded.
    public var received: Int { receivedCount }
    @usableFromInline var receivedCount: Int = 0
    /// Packets that arrived a second (or later) time. Not loss, not received.
    public var duplicates: Int { duplicatesCount }
    @usableFromInline var duplicatesCount: Int = 0
    /// Packets that arrived after a packet with a higher extended sequence number (not duplicates).
    public var reordered: Int { reorderedCount }
    @usableFromInline var reorderedCount: Int = 0
    /// Packets ignored: in probation, or a bad jump not (yet) confirmed by the next packet.
    public var discarded: Int { discardedCount }
    @usableFromInline var discardedCount: Int = 0
    /// Times the source was taken to have restarted (A.1 resync after a confirmed large jump).
    public var restarts: Int { restartsCount }
    @usableFromInline var restartsCount: Int = 0

    // Jitter (A.8) state.
    @usableFromInline var jitterUnits: Double = 0
    @usableFromInline var hasTransitReference = false
    @usableFromInline var lastTimestamp: UInt32 = 0
    @usableFromInline var lastArrival: Double = 0
    @usableFromInline var lastClockRate: Int = 0

    /// IPDV (RFC 5481) of the last packet recorded against the packet that arrived before it, in ms:
    /// arrival difference minus RTP-timestamp difference. `nil` unless the last call returned
    /// `.accepted` or `.reordered` with a previous packet to compare with. Feed it to ``DelayVariation``.
    public var lastDelayVariationMilliseconds: Double? { lastDelayVariation }
    @usableFromInline var lastDelayVariation: Double?

    // Last: each packet touches one word of the window's 128 bytes, while the fields above all
    // change together and share cache lines.
    /// Bit `ext & 1023` is set when extended sequence number `ext` (within the window) arrived.
    @usableFromInline var window = SequenceWindow()

    /// Creates statistics for a stream not yet seen.
    /// - Parameter minSequential: consecutive packets that validate the source (RFC 3550: 2);
    ///   values below 1 are treated as 1.
    public init(minSequential: Int = ReceiveStatistics.defaultMinSequential) {
        self.minSequential = Swift.max(1, minSequential)
    }

    /// Whether the source has passed probation.
    public var isValid: Bool { validated }

    /// Highest extended sequence number received, as an Int (cycles·65536 + sequence number).
    public var highestExtendedSequence: Int { maxExtended }

    /// The RTCP report-block field: cycles in the high 16 bits, highest sequence number in the low 16.
    public var extendedHighestSequenceNumber: UInt32 { UInt32(truncatingIfNeeded: maxExtended) }

    /// Packets expected: highest extended − base extended + 1; 0 before the source is valid.
    public var expected: Int { validated ? maxExtended - baseExtended + 1 : 0 }

    /// Cumulative packets lost: expected − received, never below 0.
    public var lost: Int { Swift.max(0, expected - received) }

    /// Cumulative loss as a percentage of packets expected, 0 to 100; 0 when nothing is expected.
    public var fractionLostPercent: Double {
        let expected = expected
        guard expected > 0 else { return 0 }
        return Double(lost) / Double(expected) * 100
    }

    /// Interarrival jitter in RTP timestamp units, truncated: the RTCP report-block field.
    public var jitter: UInt32 {
        jitterUnits < 4_294_967_295 ? UInt32(jitterUnits) : .max
    }

    /// Interarrival jitter in ms, using the clock rate of the last packet; 0 before two in-order packets.
    public var jitterMilliseconds: Double {
        lastClockRate > 0 ? jitterUnits / Double(lastClockRate) * 1000 : 0
    }
}

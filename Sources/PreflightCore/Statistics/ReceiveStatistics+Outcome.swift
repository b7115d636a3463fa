extension ReceiveStatistics {
    /// What ``ReceiveStatistics/record(sequenceNumber:rtpTimestamp:arrival:clockRate:)`` did with a packet.
    public enum Outcome: Sendable, Hashable {
        /// In order (possibly after a gap): counted, and it updated the jitter.
        case accepted
        /// Already received: not counted again, not loss.
        case duplicate
        /// Late but new: counted as received (not loss); it updates the jitter (A.8 works in arrival order).
        case reordered
        /// The source is still in probation: not counted.
        case probation
        /// A large jump not (yet) confirmed by the next packet: ignored.
        case badJump
        /// A large jump confirmed by this packet: the source restarted, counters start again here.
        case restarted
    }
}

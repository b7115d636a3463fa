/// What the ``ImpairmentRelay`` did to one datagram: its ground truth.
public struct RelayLogEntry: Sendable, Hashable {
    /// Which way a datagram went.
    public enum Direction: String, Sendable, Hashable {
        /// From the client to the target.
        case upstream
        /// From the target to the client.
        case downstream
    }

    /// What a datagram carried, from its first bytes (RFC 7983's demultiplexing).
    public enum Kind: String, Sendable, Hashable {
        /// RTP (RFC 3550), payload types below 64 or above 95.
        case rtp
        /// RTCP (payload types 64–95 once the marker bit is cleared).
        case rtcp
        /// STUN (first byte 0–3).
        case stun
        /// Anything else.
        case other
    }

    /// Its direction.
    public var direction: Direction
    /// Its place in its direction's arrival order, from 0.
    public var index: Int
    /// What it carried.
    public var kind: Kind
    /// The RTP sequence number, for RTP.
    public var rtpSequenceNumber: UInt16?
    /// Its size (UDP payload).
    public var bytes: Int
    /// When it reached the relay, since the relay started.
    public var arrival: Duration
    /// When each copy was scheduled to leave, since the relay started: empty when it was dropped,
    /// two entries when it was duplicated.
    public var releases: [Duration]

    /// Whether the relay dropped it.
    public var dropped: Bool { releases.isEmpty }

    /// Creates an entry.
    public init(
        direction: Direction, index: Int, kind: Kind, rtpSequenceNumber: UInt16?, bytes: Int, arrival: Duration,
        releases: [Duration]
    ) {
        self.direction = direction
        self.index = index
        self.kind = kind
        self.rtpSequenceNumber = rtpSequenceNumber
        self.bytes = bytes
        self.arrival = arrival
        self.releases = releases
    }
}

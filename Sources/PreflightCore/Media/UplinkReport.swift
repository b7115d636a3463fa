/// What the edge received of the client's stream so far (the uplink): cumulative counts and the
/// RFC 3550 interarrival jitter, as carried on echoes (``MediaExtension``) or derived from an RTCP
/// report block.
public struct UplinkReport: Sendable, Hashable {
    /// Packets the edge expected (highest extended sequence number − first + 1).
    public var expected: UInt32
    /// Distinct packets the edge received (duplicates excluded).
    public var received: UInt32
    /// RFC 3550 interarrival jitter of the uplink, µs.
    public var jitterMicroseconds: UInt32

    /// Creates a report.
    public init(expected: UInt32, received: UInt32, jitterMicroseconds: UInt32) {
        self.expected = expected
        self.received = received
        self.jitterMicroseconds = jitterMicroseconds
    }
}

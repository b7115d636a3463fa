/// The fields the edge adds to an echoed packet (``MediaExtension`` elements 1–4).
public struct EchoReport: Sendable, Hashable {
    /// The sequence number of the client's packet this echo reflects.
    public var originalSequence: UInt16
    /// How long the packet stayed in the edge, µs: subtracted from the round trip.
    public var holdMicroseconds: UInt32
    /// The client's send time of the original packet, µs on the client's clock (copied back).
    public var clientSendMicroseconds: UInt64
    /// When the edge sent the echo, µs on the edge's clock: the downlink's jitter reference.
    public var edgeSendMicroseconds: UInt64
    /// What the edge has received of the client's stream so far.
    public var uplink: UplinkReport

    /// Creates a report.
    public init(
        originalSequence: UInt16, holdMicroseconds: UInt32, clientSendMicroseconds: UInt64,
        edgeSendMicroseconds: UInt64, uplink: UplinkReport
    ) {
        self.originalSequence = originalSequence
        self.holdMicroseconds = holdMicroseconds
        self.clientSendMicroseconds = clientSendMicroseconds
        self.edgeSendMicroseconds = edgeSendMicroseconds
        self.uplink = uplink
    }
}

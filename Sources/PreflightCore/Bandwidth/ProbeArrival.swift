/// One probe packet as its receiver saw it: the input of ``BandwidthEstimator``.
public struct ProbeArrival: Sendable, Hashable {
    /// The probe sequence number (0 for the direction's first packet).
    public var sequence: UInt32
    /// When it was sent, seconds on the sender's clock.
    public var sendTime: Double
    /// When it arrived, seconds on the receiver's clock (its offset from the sender's is unknown
    /// and irrelevant: only differences of one-way delay are used).
    public var arrivalTime: Double
    /// Bytes on the wire: UDP payload plus ``ProbePacket/wireOverhead(ipv6:)``.
    public var wireBytes: Int

    /// Creates a record.
    public init(sequence: UInt32, sendTime: Double, arrivalTime: Double, wireBytes: Int) {
        self.sequence = sequence
        self.sendTime = sendTime
        self.arrivalTime = arrivalTime
        self.wireBytes = wireBytes
    }
}

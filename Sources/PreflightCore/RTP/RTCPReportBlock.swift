/// One reception report block of an RTCP SR or RR (RFC 3550 §6.4.1), 24 bytes on the wire.
public struct RTCPReportBlock: Sendable, Hashable {
    /// Size of a block on the wire (bytes).
    public static let size = 24
    /// The largest cumulative loss the signed 24-bit field can carry (packets).
    public static let maximumCumulativeLost: Int32 = 0x7F_FFFF
    /// The smallest (most negative, from duplicates) cumulative loss the field can carry (packets).
    public static let minimumCumulativeLost: Int32 = -0x80_0000

    /// The source this block reports on.
    public var ssrc: UInt32
    /// Packets lost since the previous report, as a fixed-point fraction of 256 (0 = none, 255 ≈ all).
    public var fractionLost: UInt8
    /// Packets lost since the start of reception; negative when duplicates outnumber losses.
    /// Encoded as a signed 24-bit value, clamped to ``minimumCumulativeLost``…``maximumCumulativeLost``
    /// (RFC 3550 A.3).
    public var cumulativeLost: Int32
    /// The highest sequence number received, extended with the count of wraps in the high 16 bits.
    public var extendedHighestSequenceNumber: UInt32
    /// The interarrival jitter estimate, in RTP timestamp units.
    public var interarrivalJitter: UInt32
    /// The middle 32 bits of the NTP timestamp of the last SR received from this source (0: none yet).
    public var lastSenderReport: UInt32
    /// Delay between receiving that SR and sending this report, in units of 1/65536 s (0: no SR yet).
    public var delaySinceLastSenderReport: UInt32

    /// Creates a report block.
    @inlinable
    public init(
        ssrc: UInt32,
        fractionLost: UInt8 = 0,
        cumulativeLost: Int32 = 0,
        extendedHighestSequenceNumber: UInt32 = 0,
        interarrivalJitter: UInt32 = 0,
        lastSenderReport: UInt32 = 0,
        delaySinceLastSenderReport: UInt32 = 0
    ) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequenceNumber = extendedHighestSequenceNumber
        self.interarrivalJitter = interarrivalJitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    /// Reads one block.
    init(from reader: inout ByteReader) throws(PreflightError) {
        ssrc = try reader.readUInt32("report block SSRC")
        let lost = try reader.readUInt32("report block loss")
        fractionLost = UInt8(truncatingIfNeeded: lost >> 24)
        // Sign-extend the 24-bit field.
        cumulativeLost = Int32(bitPattern: lost << 8) >> 8
        extendedHighestSequenceNumber = try reader.readUInt32("report block highest sequence number")
        interarrivalJitter = try reader.readUInt32("report block jitter")
        lastSenderReport = try reader.readUInt32("report block LSR")
        delaySinceLastSenderReport = try reader.readUInt32("report block DLSR")
    }

    /// Reads `count` consecutive blocks.
    static func readList(count: UInt8, from reader: inout ByteReader) throws(PreflightError) -> [RTCPReportBlock] {
        guard count > 0 else { return [] }
        let needed = Int(count) * size
        guard reader.remaining >= needed else { throw reader.truncated(needed, "report blocks") }
        var blocks: [RTCPReportBlock] = []
        blocks.reserveCapacity(Int(count))
        for _ in 0..<count {
            blocks.append(try RTCPReportBlock(from: &reader))
        }
        return blocks
    }

    /// Writes the block, clamping ``cumulativeLost`` to 24 bits.
    func write(to writer: inout ByteWriter) {
        writer.write(ssrc)
        let clamped = min(max(cumulativeLost, Self.minimumCumulativeLost), Self.maximumCumulativeLost)
        writer.write(UInt32(fractionLost) << 24 | UInt32(bitPattern: clamped) & 0x00FF_FFFF)
        writer.write(extendedHighestSequenceNumber)
        writer.write(interarrivalJitter)
        writer.write(lastSenderReport)
        writer.write(delaySinceLastSenderReport)
    }
}

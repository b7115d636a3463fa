/// An RTCP sender report, packet type 200 (RFC 3550 §6.4.1).
public struct RTCPSenderReport: Sendable, Hashable {
    /// The RTCP packet type of a sender report.
    public static let packetType: UInt8 = 200

    /// The sender's SSRC.
    public var ssrc: UInt32
    /// Wallclock time when the report was sent.
    public var ntpTimestamp: NTPTimestamp
    /// The same instant in the RTP timestamp units of the sender's media.
    public var rtpTimestamp: UInt32
    /// RTP data packets sent since the start of transmission.
    public var packetCount: UInt32
    /// RTP payload bytes sent since the start of transmission (bytes, without headers or padding).
    public var octetCount: UInt32
    /// Reception reports, at most 31.
    public var reportBlocks: [RTCPReportBlock]
    /// Profile-specific extension bytes after the report blocks, kept as they are.
    public var profileExtension: ArraySlice<UInt8>
    /// Padding bytes at the end of the packet, including the count byte (0: P bit clear).
    public var paddingCount: UInt8

    /// Creates a sender report.
    public init(
        ssrc: UInt32,
        ntpTimestamp: NTPTimestamp,
        rtpTimestamp: UInt32,
        packetCount: UInt32,
        octetCount: UInt32,
        reportBlocks: [RTCPReportBlock] = [],
        profileExtension: ArraySlice<UInt8> = [],
        paddingCount: UInt8 = 0
    ) {
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reportBlocks = reportBlocks
        self.profileExtension = profileExtension
        self.paddingCount = paddingCount
    }

    /// Decodes exactly one SR packet.
    /// - Throws: ``PreflightError`` `.truncated` when the packet is shorter than its length word or
    ///   report count say; `.malformed` for another version or type, trailing bytes, or bad padding.
    public init(decoding bytes: ArraySlice<UInt8>) throws(PreflightError) {
        let header = try RTCPHeader.parse(bytes, context: "RTCP SR")
        try self.init(header: header)
    }

    /// Decodes exactly one SR packet from an array.
    public init(decoding bytes: [UInt8]) throws(PreflightError) {
        try self.init(decoding: bytes[...])
    }

    init(header: RTCPHeader) throws(PreflightError) {
        guard header.packetType == Self.packetType else {
            throw RTCPHeader.wrongType(header.packetType, expected: Self.packetType, context: "RTCP SR")
        }
        var reader = ByteReader(header.body, context: "RTCP SR")
        ssrc = try reader.readUInt32("SSRC")
        let seconds = try reader.readUInt32("NTP timestamp")
        let fraction = try reader.readUInt32("NTP timestamp")
        ntpTimestamp = NTPTimestamp(seconds: seconds, fraction: fraction)
        rtpTimestamp = try reader.readUInt32("RTP timestamp")
        packetCount = try reader.readUInt32("packet count")
        octetCount = try reader.readUInt32("octet count")
        reportBlocks = try RTCPReportBlock.readList(count: header.count, from: &reader)
        profileExtension = reader.readRest()
        paddingCount = header.paddingCount
    }

    /// Appends the encoded packet to `output`; on error `output` is left unchanged.
    /// - Throws: ``PreflightError`` `.invalidArgument` for more than 31 report blocks, or when the
    ///   extension and padding do not make a whole number of 32-bit words.
    public func encode(into output: inout [UInt8]) throws(PreflightError) {
        let bodyLength = 24 + RTCPReportBlock.size * reportBlocks.count + profileExtension.count
        let lengthWord = try RTCPHeader.lengthWord(
            count: reportBlocks.count, bodyLength: bodyLength, paddingCount: paddingCount, context: "RTCP SR"
        )
        ByteWriter.appending(to: &output) { writer in
            RTCPHeader.write(
                count: reportBlocks.count, packetType: Self.packetType, paddingCount: paddingCount,
                lengthWord: lengthWord, to: &writer
            )
            writer.write(ssrc)
            writer.write(ntpTimestamp.seconds)
            writer.write(ntpTimestamp.fraction)
            writer.write(rtpTimestamp)
            writer.write(packetCount)
            writer.write(octetCount)
            for block in reportBlocks { block.write(to: &writer) }
            writer.write(contentsOf: profileExtension)
            RTCPHeader.writePadding(paddingCount, to: &writer)
        }
    }

    /// The encoded packet.
    /// - Throws: as ``encode(into:)``.
    public func encoded() throws(PreflightError) -> [UInt8] {
        var output: [UInt8] = []
        try encode(into: &output)
        return output
    }
}

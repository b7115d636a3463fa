/// An RTCP receiver report, packet type 201 (RFC 3550 §6.4.2).
public struct RTCPReceiverReport: Sendable, Hashable {
    /// The RTCP packet type of a receiver report.
    public static let packetType: UInt8 = 201

    /// The SSRC of the report's sender.
    public var ssrc: UInt32
    /// Reception reports, at most 31.
    public var reportBlocks: [RTCPReportBlock]
    /// Profile-specific extension bytes after the report blocks, kept as they are.
    public var profileExtension: ArraySlice<UInt8>
    /// Padding bytes at the end of the packet, including the count byte (0: P bit clear).
    public var paddingCount: UInt8

    /// Creates a receiver report.
    public init(
        ssrc: UInt32,
        reportBlocks: [RTCPReportBlock] = [],
        profileExtension: ArraySlice<UInt8> = [],
        paddingCount: UInt8 = 0
    ) {
        self.ssrc = ssrc
        self.reportBlocks = reportBlocks
        self.profileExtension = profileExtension
        self.paddingCount = paddingCount
    }

    /// Decodes exactly one RR packet.
    /// - Throws: ``PreflightError`` `.truncated` when the packet is shorter than its length word or
    ///   report count say; `.malformed` for another version or type, trailing bytes, or bad padding.
    public init(decoding bytes: ArraySlice<UInt8>) throws(PreflightError) {
        let header = try RTCPHeader.parse(bytes, context: "RTCP RR")
        try self.init(header: header)
    }

    /// Decodes exactly one RR packet from an array.
    public init(decoding bytes: [UInt8]) throws(PreflightError) {
        try self.init(decoding: bytes[...])
    }

    init(header: RTCPHeader) throws(PreflightError) {
        guard header.packetType == Self.packetType else {
            throw RTCPHeader.wrongType(header.packetType, expected: Self.packetType, context: "RTCP RR")
        }
        var reader = ByteReader(header.body, context: "RTCP RR")
        ssrc = try reader.readUInt32("SSRC")
        reportBlocks = try RTCPReportBlock.readList(count: header.count, from: &reader)
        profileExtension = reader.readRest()
        paddingCount = header.paddingCount
    }

    /// Appends the encoded packet to `output`; on error `output` is left unchanged.
    /// - Throws: ``PreflightError`` `.invalidArgument` for more than 31 report blocks, or when the
    ///   extension and padding do not make a whole number of 32-bit words.
    public func encode(into output: inout [UInt8]) throws(PreflightError) {
        let bodyLength = 4 + RTCPReportBlock.size * reportBlocks.count + profileExtension.count
        let lengthWord = try RTCPHeader.lengthWord(
            count: reportBlocks.count, bodyLength: bodyLength, paddingCount: paddingCount, context: "RTCP RR"
        )
        ByteWriter.appending(to: &output) { writer in
            RTCPHeader.write(
                count: reportBlocks.count, packetType: Self.packetType, paddingCount: paddingCount,
                lengthWord: lengthWord, to: &writer
            )
            writer.write(ssrc)
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

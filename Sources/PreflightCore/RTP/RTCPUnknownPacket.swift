/// An RTCP packet of a type this codec does not interpret (APP, feedback, XR, …), kept as raw bytes.
public struct RTCPUnknownPacket: Sendable, Hashable {
    /// The packet type (e.g. 204 APP, 205 RTPFB, 206 PSFB, 207 XR).
    public var packetType: UInt8
    /// The 5-bit count or subtype field (0–31).
    public var count: UInt8
    /// Everything after the 4-byte header, without padding.
    public var payload: ArraySlice<UInt8>
    /// Padding bytes at the end of the packet, including the count byte (0: P bit clear).
    public var paddingCount: UInt8

    /// Creates a packet.
    public init(packetType: UInt8, count: UInt8, payload: ArraySlice<UInt8>, paddingCount: UInt8 = 0) {
        self.packetType = packetType
        self.count = count
        self.payload = payload
        self.paddingCount = paddingCount
    }

    /// Decodes exactly one packet of any type without interpreting its body.
    /// - Throws: ``PreflightError`` `.truncated` when the packet is shorter than its length word says;
    ///   `.malformed` for another version, trailing bytes or bad padding.
    public init(decoding bytes: ArraySlice<UInt8>) throws(PreflightError) {
        self.init(header: try RTCPHeader.parse(bytes, context: "RTCP"))
    }

    /// Decodes exactly one packet from an array.
    public init(decoding bytes: [UInt8]) throws(PreflightError) {
        try self.init(decoding: bytes[...])
    }

    init(header: RTCPHeader) {
        packetType = header.packetType
        count = header.count
        payload = header.body
        paddingCount = header.paddingCount
    }

    /// Appends the encoded packet to `output`; on error `output` is left unchanged.
    /// - Throws: ``PreflightError`` `.invalidArgument` for a count above 31, or when payload and
    ///   padding do not make a whole number of 32-bit words.
    public func encode(into output: inout [UInt8]) throws(PreflightError) {
        let lengthWord = try RTCPHeader.lengthWord(
            count: Int(count), bodyLength: payload.count, paddingCount: paddingCount, context: "RTCP"
        )
        ByteWriter.appending(to: &output) { writer in
            RTCPHeader.write(
                count: Int(count), packetType: packetType, paddingCount: paddingCount,
                lengthWord: lengthWord, to: &writer
            )
            writer.write(contentsOf: payload)
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

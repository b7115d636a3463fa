/// An RTCP goodbye (BYE), packet type 203 (RFC 3550 §6.6).
public struct RTCPGoodbye: Sendable, Hashable {
    /// The RTCP packet type of a goodbye.
    public static let packetType: UInt8 = 203

    /// The sources leaving, at most 31.
    public var ssrcs: [UInt32]
    /// The reason for leaving as raw bytes (UTF-8, 0–255 bytes); `nil` when the packet carries none.
    public var reasonBytes: ArraySlice<UInt8>?
    /// Padding bytes at the end of the packet, including the count byte (0: P bit clear).
    public var paddingCount: UInt8

    /// Creates a goodbye with the reason as raw bytes.
    public init(ssrcs: [UInt32], reasonBytes: ArraySlice<UInt8>?, paddingCount: UInt8 = 0) {
        self.ssrcs = ssrcs
        self.reasonBytes = reasonBytes
        self.paddingCount = paddingCount
    }

    /// Creates a goodbye with an optional text reason.
    public init(ssrcs: [UInt32], reason: String? = nil, paddingCount: UInt8 = 0) {
        self.init(ssrcs: ssrcs, reasonBytes: reason.map { ArraySlice($0.utf8) }, paddingCount: paddingCount)
    }

    /// The reason as text (invalid UTF-8 becomes U+FFFD); setting it stores the UTF-8 bytes.
    public var reason: String? {
        get { reasonBytes.map { String(decoding: $0, as: UTF8.self) } }
        set { reasonBytes = newValue.map { ArraySlice($0.utf8) } }
    }

    /// Decodes exactly one BYE packet.
    /// - Throws: ``PreflightError`` `.truncated` when the SSRC list or reason runs past the packet;
    ///   `.malformed` for another version or type, non-zero bytes after the reason, bytes beyond
    ///   the reason's 32-bit boundary, trailing bytes or bad padding.
    public init(decoding bytes: ArraySlice<UInt8>) throws(PreflightError) {
        let header = try RTCPHeader.parse(bytes, context: "RTCP BYE")
        try self.init(header: header)
    }

    /// Decodes exactly one BYE packet from an array.
    public init(decoding bytes: [UInt8]) throws(PreflightError) {
        try self.init(decoding: bytes[...])
    }

    init(header: RTCPHeader) throws(PreflightError) {
        guard header.packetType == Self.packetType else {
            throw RTCPHeader.wrongType(header.packetType, expected: Self.packetType, context: "RTCP BYE")
        }
        var reader = ByteReader(header.body, context: "RTCP BYE")
        var ssrcs: [UInt32] = []
        if header.count > 0 {
            let needed = 4 * Int(header.count)
            guard reader.remaining >= needed else { throw reader.truncated(needed, "SSRC list") }
            ssrcs.reserveCapacity(Int(header.count))
            for _ in 0..<header.count {
                ssrcs.append(try reader.readUInt32("SSRC"))
            }
        }
        self.ssrcs = ssrcs
        if reader.isAtEnd {
            reasonBytes = nil
        } else {
            let length = Int(try reader.readUInt8("reason length"))
            reasonBytes = try reader.readBytes(length, "reason")
            let padding = try reader.readBytes(Self.reasonPadding(length), "reason padding")
            guard padding.allSatisfy({ $0 == 0 }) else {
                throw PreflightError(code: .malformed, message: "RTCP BYE: non-zero padding after the reason")
            }
            guard reader.isAtEnd else {
                throw PreflightError(
                    code: .malformed,
                    message: "RTCP BYE: \(reader.remaining) byte(s) after the reason"
                )
            }
        }
        paddingCount = header.paddingCount
    }

    /// Appends the encoded packet to `output`; on error `output` is left unchanged.
    /// - Throws: ``PreflightError`` `.invalidArgument` for more than 31 SSRCs, a reason longer than
    ///   255 bytes, or padding that is not a multiple of 4 bytes.
    public func encode(into output: inout [UInt8]) throws(PreflightError) {
        var bodyLength = 4 * ssrcs.count
        if let reasonBytes {
            guard reasonBytes.count <= 255 else {
                throw PreflightError(
                    code: .invalidArgument,
                    message: "RTCP BYE: reason is \(reasonBytes.count) bytes, at most 255 allowed"
                )
            }
            bodyLength += 1 + reasonBytes.count + Self.reasonPadding(reasonBytes.count)
        }
        let lengthWord = try RTCPHeader.lengthWord(
            count: ssrcs.count, bodyLength: bodyLength, paddingCount: paddingCount, context: "RTCP BYE"
        )
        ByteWriter.appending(to: &output) { writer in
            RTCPHeader.write(
                count: ssrcs.count, packetType: Self.packetType, paddingCount: paddingCount,
                lengthWord: lengthWord, to: &writer
            )
            for ssrc in ssrcs { writer.write(ssrc) }
            if let reasonBytes {
                writer.write(UInt8(truncatingIfNeeded: reasonBytes.count))
                writer.write(contentsOf: reasonBytes)
                writer.writeZeros(Self.reasonPadding(reasonBytes.count))
            }
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

    /// Null octets after a reason of `length` bytes (plus its length byte) to the next 32-bit boundary.
    static func reasonPadding(_ length: Int) -> Int {
        (4 - (1 + length) % 4) % 4
    }
}

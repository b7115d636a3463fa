/// An RTCP source description (SDES), packet type 202 (RFC 3550 §6.5).
public struct RTCPSourceDescription: Sendable, Hashable {
    /// The RTCP packet type of a source description.
    public static let packetType: UInt8 = 202

    /// The chunks, one per source, at most 31.
    public var chunks: [Chunk]
    /// Padding bytes at the end of the packet, including the count byte (0: P bit clear).
    public var paddingCount: UInt8

    /// Creates a source description.
    public init(chunks: [Chunk], paddingCount: UInt8 = 0) {
        self.chunks = chunks
        self.paddingCount = paddingCount
    }

    /// A source description with one chunk holding just a CNAME, the minimum RFC 3550 §6.1 asks for.
    public static func cname(_ cname: String, ssrc: UInt32) -> RTCPSourceDescription {
        RTCPSourceDescription(chunks: [Chunk(ssrc: ssrc, items: [.cname(cname)])])
    }

    /// The CNAME of the chunk for `ssrc`, if the packet describes that source and gives one.
    public func cname(ssrc: UInt32) -> String? {
        chunks.first { $0.ssrc == ssrc }?.cname
    }

    /// Decodes exactly one SDES packet.
    /// - Throws: ``PreflightError`` `.truncated` when a chunk or item runs past the packet;
    ///   `.malformed` for another version or type, non-zero chunk padding, bytes after the last
    ///   chunk, trailing bytes or bad padding.
    public init(decoding bytes: ArraySlice<UInt8>) throws(PreflightError) {
        let header = try RTCPHeader.parse(bytes, context: "RTCP SDES")
        try self.init(header: header)
    }

    /// Decodes exactly one SDES packet from an array.
    public init(decoding bytes: [UInt8]) throws(PreflightError) {
        try self.init(decoding: bytes[...])
    }

    init(header: RTCPHeader) throws(PreflightError) {
        guard header.packetType == Self.packetType else {
            throw RTCPHeader.wrongType(header.packetType, expected: Self.packetType, context: "RTCP SDES")
        }
        var reader = ByteReader(header.body, context: "RTCP SDES")
        var chunks: [Chunk] = []
        chunks.reserveCapacity(Int(header.count))
        for _ in 0..<header.count {
            let chunkStart = reader.offset
            let ssrc = try reader.readUInt32("chunk SSRC")
            var items: [Item] = []
            while true {
                let type = try reader.readUInt8("item type")
                if type == 0 { break }  // end of the item list
                let length = try reader.readUInt8("item length")
                items.append(Item(type: type, value: try reader.readBytes(Int(length), "item value")))
            }
            // The null octet(s) run to the next 32-bit boundary.
            let used = reader.offset - chunkStart
            let padding = try reader.readBytes((4 - used % 4) % 4, "chunk padding")
            guard padding.allSatisfy({ $0 == 0 }) else {
                throw PreflightError(
                    code: .malformed,
                    message: "RTCP SDES: chunk for SSRC \(ssrc) has non-zero bytes after its terminating null octet"
                )
            }
            chunks.append(Chunk(ssrc: ssrc, items: items))
        }
        guard reader.isAtEnd else {
            throw PreflightError(
                code: .malformed,
                message: "RTCP SDES: \(reader.remaining) byte(s) after the \(header.count) chunk(s) the count announces"
            )
        }
        self.chunks = chunks
        paddingCount = header.paddingCount
    }

    /// Appends the encoded packet to `output`; on error `output` is left unchanged.
    /// - Throws: ``PreflightError`` `.invalidArgument` for more than 31 chunks, an item of type 0 or
    ///   longer than 255 bytes, or padding that is not a multiple of 4 bytes.
    public func encode(into output: inout [UInt8]) throws(PreflightError) {
        var bodyLength = 0
        for chunk in chunks {
            var itemsLength = 0
            for item in chunk.items {
                guard item.type != 0 else {
                    throw PreflightError(
                        code: .invalidArgument,
                        message: "RTCP SDES: item type 0 (END) cannot be encoded as an item"
                    )
                }
                guard item.value.count <= 255 else {
                    throw PreflightError(
                        code: .invalidArgument,
                        message: "RTCP SDES: item type \(item.type) is \(item.value.count) bytes, at most 255 allowed"
                    )
                }
                itemsLength += 2 + item.value.count
            }
            bodyLength += 4 + Self.paddedItemsLength(itemsLength)
        }
        let lengthWord = try RTCPHeader.lengthWord(
            count: chunks.count, bodyLength: bodyLength, paddingCount: paddingCount, context: "RTCP SDES"
        )
        ByteWriter.appending(to: &output) { writer in
            RTCPHeader.write(
                count: chunks.count, packetType: Self.packetType, paddingCount: paddingCount,
                lengthWord: lengthWord, to: &writer
            )
            for chunk in chunks {
                writer.write(chunk.ssrc)
                var itemsLength = 0
                for item in chunk.items {
                    writer.write(item.type)
                    writer.write(UInt8(truncatingIfNeeded: item.value.count))
                    writer.write(contentsOf: item.value)
                    itemsLength += 2 + item.value.count
                }
                writer.writeZeros(Self.paddedItemsLength(itemsLength) - itemsLength)
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

    /// Items plus 1–4 null octets, ending on a 32-bit boundary.
    static func paddedItemsLength(_ itemsLength: Int) -> Int {
        itemsLength + 4 - itemsLength % 4
    }
}

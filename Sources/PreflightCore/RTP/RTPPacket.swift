/// An RTP data packet (RFC 3550 §5.1), decoded without copying its payload.
///
/// Decoding checks the version (2), the CSRC list and header extension lengths and the padding
/// count, and keeps the header extension and payload as slices of the input. Re-encoding a decoded
/// packet gives the same bytes back (padding octets other than the count are written as zeros).
public struct RTPPacket: Sendable, Hashable {
    /// The only RTP version this codec speaks.
    public static let version: UInt8 = 2
    /// The most CSRCs the 4-bit CC field can count.
    public static let maximumCSRCCount = 15
    /// Size of the fixed header, without CSRCs or extension (bytes).
    public static let fixedHeaderSize = 12

    /// The marker bit (e.g. the first packet of a talkspurt for audio).
    public var marker: Bool
    /// The payload type, 7 bits (0–127); 0 is PCMU.
    public var payloadType: UInt8
    /// The sequence number, incremented by one per packet and wrapping at 65535.
    public var sequenceNumber: UInt16
    /// The RTP timestamp, in the clock rate of the payload format (e.g. 8000 Hz for PCMU).
    public var timestamp: UInt32
    /// The synchronization source.
    public var ssrc: UInt32
    /// The contributing sources, 0–15 of them.
    public var csrcs: [UInt32]
    /// The header extension, present when the X bit is set.
    public var headerExtension: RTPHeaderExtension?
    /// The payload, without padding.
    public var payload: ArraySlice<UInt8>
    /// The number of padding bytes after the payload, including the final count byte itself;
    /// 0 means no padding (P bit clear).
    public var paddingCount: UInt8

    /// Creates a packet.
    @inlinable
    public init(
        marker: Bool = false,
        payloadType: UInt8,
        sequenceNumber: UInt16,
        timestamp: UInt32,
        ssrc: UInt32,
        csrcs: [UInt32] = [],
        headerExtension: RTPHeaderExtension? = nil,
        payload: ArraySlice<UInt8>,
        paddingCount: UInt8 = 0
    ) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.headerExtension = headerExtension
        self.payload = payload
        self.paddingCount = paddingCount
    }

    /// Whether the P bit is set.
    @inlinable public var hasPadding: Bool { paddingCount > 0 }

    /// The size of the encoded packet (bytes).
    @inlinable
    public var encodedCount: Int {
        var size = Self.fixedHeaderSize &+ 4 &* csrcs.count &+ payload.count &+ Int(paddingCount)
        if let headerExtension { size = size &+ 4 &+ headerExtension.data.count }
        return size
    }

    /// Decodes one RTP packet; the extension and payload are slices of `bytes`.
    /// - Throws: ``PreflightError`` `.truncated` when the header, CSRC list or extension is cut
    ///   short; `.malformed` for a version other than 2 or a padding count of 0 or larger than
    ///   the bytes after the header.
    public init(decoding bytes: ArraySlice<UInt8>) throws(PreflightError) {
        let header = try bytes.withRawBytes { buffer throws(PreflightError) in try RTPHeader(parsing: buffer) }
        let base = bytes.startIndex
        var csrcs: [UInt32] = []  // the empty array singleton: no allocation without CSRCs
        if header.csrcCount > 0 {
            csrcs = bytes.withUnsafeBytes { buffer in
                (0..<header.csrcCount).map { header.csrc(at: $0, in: buffer) }
            }
        }
        func slice(_ range: Range<Int>) -> ArraySlice<UInt8> {
            bytes[(base + range.lowerBound)..<(base + range.upperBound)]
        }
        self.init(
            marker: header.marker, payloadType: header.payloadType, sequenceNumber: header.sequenceNumber,
            timestamp: header.timestamp, ssrc: header.ssrc, csrcs: csrcs,
            headerExtension: header.extensionProfile.map { RTPHeaderExtension(profile: $0, data: slice(header.extensionRange)) },
            payload: slice(header.payloadRange), paddingCount: header.paddingCount)
    }

    /// Decodes one RTP packet from an array (see the `ArraySlice` overload).
    @inlinable
    public init(decoding bytes: [UInt8]) throws(PreflightError) {
        try self.init(decoding: bytes[...])
    }

    /// Appends the encoded packet to `output`; on error `output` is left unchanged.
    /// - Throws: ``PreflightError`` `.invalidArgument` for more than 15 CSRCs, a payload type
    ///   above 127, or an extension whose data is not a whole number (≤ 65535) of 32-bit words.
    public func encode(into output: inout [UInt8]) throws(PreflightError) {
        guard csrcs.count <= Self.maximumCSRCCount else {
            throw PreflightError(code: .invalidArgument, message: "RTP: \(csrcs.count) CSRCs, at most 15 allowed")
        }
        guard payloadType <= 0x7F else {
            throw PreflightError(code: .invalidArgument, message: "RTP: payload type \(payloadType) exceeds 127")
        }
        try headerExtension?.validate()
        ByteWriter.appending(to: &output) { writer in
            var first: UInt8 = Self.version << 6 | UInt8(truncatingIfNeeded: csrcs.count)
            if paddingCount > 0 { first |= 0x20 }
            if headerExtension != nil { first |= 0x10 }
            writer.write(first)
            writer.write((marker ? 0x80 : 0) | payloadType)
            writer.write(sequenceNumber)
            writer.write(timestamp)
            writer.write(ssrc)
            for csrc in csrcs { writer.write(csrc) }
            if let headerExtension {
                writer.write(headerExtension.profile)
                writer.write(UInt16(truncatingIfNeeded: headerExtension.data.count / 4))
                writer.write(contentsOf: headerExtension.data)
            }
            writer.write(contentsOf: payload)
            if paddingCount > 0 {
                writer.writeZeros(Int(paddingCount) - 1)
                writer.write(paddingCount)
            }
        }
    }

    /// The encoded packet.
    /// - Throws: as ``encode(into:)``.
    public func encoded() throws(PreflightError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(encodedCount)
        try encode(into: &output)
        return output
    }
}

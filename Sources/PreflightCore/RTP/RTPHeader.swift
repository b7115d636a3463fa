/// A validated RTP header parsed in place: the fixed fields as values and the positions of the
/// CSRC list, header extension and payload as offsets into the packet's bytes.
///
/// This is the receive hot path's decoder. It reads raw memory (for example a NIO `ByteBuffer`'s
/// readable bytes) without copying or retaining anything, and checks exactly what
/// ``RTPPacket/init(decoding:)-(ArraySlice<UInt8>)`` checks (that initializer is built on this one).
public struct RTPHeader: Sendable, Hashable {
    /// The marker bit.
    public var marker: Bool
    /// The payload type, 0–127.
    public var payloadType: UInt8
    /// The sequence number.
    public var sequenceNumber: UInt16
    /// The RTP timestamp, in the payload format's clock rate.
    public var timestamp: UInt32
    /// The synchronization source.
    public var ssrc: UInt32
    /// How many CSRCs follow the fixed header (0–15); they start at offset 12.
    public var csrcCount: Int
    /// The header extension's profile, `nil` when the X bit is clear.
    public var extensionProfile: UInt16?
    /// Offsets of the header extension's body (after its 4-byte header); empty without one.
    public var extensionRange: Range<Int>
    /// Offsets of the payload, padding excluded.
    public var payloadRange: Range<Int>
    /// Padding bytes after the payload, including the count byte; 0 when the P bit is clear.
    public var paddingCount: UInt8

    /// Parses and validates the header of the RTP packet in `bytes`.
    /// - Throws: ``PreflightError`` `.truncated` when the header, CSRC list or extension is cut
    ///   short; `.malformed` for a version other than 2 or a padding count of 0 or larger than the
    ///   bytes after the header.
    @inlinable
    public init(parsing bytes: UnsafeRawBufferPointer) throws(PreflightError) {
        let count = bytes.count
        guard count >= RTPPacket.fixedHeaderSize else {
            throw PreflightError(
                code: .truncated,
                message: "RTP: truncated fixed header: need 12 byte(s) at offset 0, \(count) left")
        }
        let first = bytes[0]
        guard first >> 6 == RTPPacket.version else {
            throw PreflightError(code: .malformed, message: "RTP: version is \(first >> 6), expected 2")
        }
        let second = bytes[1]
        marker = second & 0x80 != 0
        payloadType = second & 0x7F
        sequenceNumber = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        timestamp = Self.uint32(bytes, at: 4)
        ssrc = Self.uint32(bytes, at: 8)
        csrcCount = Int(first & 0x0F)
        var offset = RTPPacket.fixedHeaderSize &+ 4 &* csrcCount
        guard offset <= count else {
            throw PreflightError(
                code: .truncated,
                message: "RTP: truncated CSRC list: need \(4 * csrcCount) byte(s) at offset 12, \(count - 12) left")
        }
        if first & 0x10 != 0 {
            guard count &- offset >= 4 else {
                throw PreflightError(
                    code: .truncated,
                    message: "RTP: truncated extension header: need 4 byte(s) at offset \(offset), \(count - offset) left")
            }
            extensionProfile = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset &+ 1])
            let length = 4 &* (Int(bytes[offset &+ 2]) << 8 | Int(bytes[offset &+ 3]))
            offset &+= 4
            guard count &- offset >= length else {
                throw PreflightError(
                    code: .truncated,
                    message: "RTP: truncated extension data: need \(length) byte(s) at offset \(offset), \(count - offset) left")
            }
            extensionRange = offset..<(offset &+ length)
            offset &+= length
        } else {
            extensionProfile = nil
            extensionRange = offset..<offset
        }
        if first & 0x20 != 0 {
            let available = count &- offset
            guard available > 0 else {
                throw PreflightError(code: .malformed, message: "RTP: padding bit set but no bytes after the header")
            }
            let padding = bytes[count &- 1]
            guard padding > 0, Int(padding) <= available else {
                throw PreflightError(
                    code: .malformed,
                    message: "RTP: padding count \(padding) is invalid with \(available) byte(s) after the header")
            }
            paddingCount = padding
            payloadRange = offset..<(count &- Int(padding))
        } else {
            paddingCount = 0
            payloadRange = offset..<count
        }
    }

    /// The CSRC at `index` (0 ..< ``csrcCount``) from the packet's bytes.
    @inlinable
    public func csrc(at index: Int, in bytes: UnsafeRawBufferPointer) -> UInt32 {
        Self.uint32(bytes, at: RTPPacket.fixedHeaderSize &+ 4 &* index)
    }

    /// Offsets of the data of the first RFC 8285 element with `id` in the packet's header
    /// extension; `nil` without an extension, for an opaque profile, when there is no such element
    /// or the elements before it are malformed.
    @inlinable
    public func extensionElement(id: UInt8, in bytes: UnsafeRawBufferPointer) -> Range<Int>? {
        guard let extensionProfile else { return nil }
        let kind = RTPHeaderExtension(profile: extensionProfile, data: []).kind
        var scanner = RTPHeaderExtension.ElementScanner(UnsafeRawBufferPointer(rebasing: bytes[extensionRange]), kind: kind)
        guard let range = scanner.first(id: id) else { return nil }
        return (extensionRange.lowerBound &+ range.lowerBound)..<(extensionRange.lowerBound &+ range.upperBound)
    }

    @inlinable
    static func uint32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset &+ 1]) << 16 | UInt32(bytes[offset &+ 2]) << 8
            | UInt32(bytes[offset &+ 3])
    }
}

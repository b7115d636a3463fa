/// Reads big-endian (network order) integers and byte runs from a slice, checking every length.
///
/// Every read either returns a value or throws ``PreflightError`` with code
/// ``PreflightError/Code/truncated``: decoding never traps on short or hostile input.
@usableFromInline
struct ByteReader {
    /// The bytes still to be read.
    @usableFromInline private(set) var bytes: ArraySlice<UInt8>
    /// Names the format in error messages, e.g. "RTP" or "STUN".
    @usableFromInline let context: StaticString
    /// Index of the first byte of the input, to report offsets relative to it.
    @usableFromInline let origin: Int

    @inlinable
    init(_ bytes: ArraySlice<UInt8>, context: StaticString) {
        self.bytes = bytes
        self.context = context
        self.origin = bytes.startIndex
    }

    @inlinable
    init(_ bytes: [UInt8], context: StaticString) {
        self.init(bytes[...], context: context)
    }

    /// How many bytes are left.
    @inlinable var remaining: Int { bytes.count }
    /// Offset of the next byte from the start of the input.
    @inlinable var offset: Int { bytes.startIndex - origin }
    /// Whether every byte was read.
    @inlinable var isAtEnd: Bool { bytes.isEmpty }

    @inlinable
    func truncated(_ needed: Int, _ field: StaticString) -> PreflightError {
        PreflightError(
            code: .truncated,
            message: "\(context): truncated \(field): need \(needed) byte(s) at offset \(offset), \(remaining) left"
        )
    }

    @inlinable
    mutating func readUInt8(_ field: StaticString = "field") throws(PreflightError) -> UInt8 {
        guard let first = bytes.first else { throw truncated(1, field) }
        bytes = bytes.dropFirst()
        return first
    }

    @inlinable
    mutating func readUInt16(_ field: StaticString = "field") throws(PreflightError) -> UInt16 {
        guard bytes.count >= 2 else { throw truncated(2, field) }
        let i = bytes.startIndex
        let value = UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1])
        bytes = bytes[(i + 2)...]
        return value
    }

    @inlinable
    mutating func readUInt24(_ field: StaticString = "field") throws(PreflightError) -> UInt32 {
        guard bytes.count >= 3 else { throw truncated(3, field) }
        let i = bytes.startIndex
        let value = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
        bytes = bytes[(i + 3)...]
        return value
    }

    @inlinable
    mutating func readUInt32(_ field: StaticString = "field") throws(PreflightError) -> UInt32 {
        guard bytes.count >= 4 else { throw truncated(4, field) }
        let i = bytes.startIndex
        let value =
            UInt32(bytes[i]) << 24 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3])
        bytes = bytes[(i + 4)...]
        return value
    }

    @inlinable
    mutating func readUInt64(_ field: StaticString = "field") throws(PreflightError) -> UInt64 {
        let high = try readUInt32(field)
        let low = try readUInt32(field)
        return UInt64(high) << 32 | UInt64(low)
    }

    /// Reads `count` bytes without copying them.
    @inlinable
    mutating func readBytes(_ count: Int, _ field: StaticString = "field") throws(PreflightError) -> ArraySlice<UInt8> {
        guard count >= 0, bytes.count >= count else { throw truncated(count, field) }
        let end = bytes.startIndex + count
        let run = bytes[bytes.startIndex..<end]
        bytes = bytes[end...]
        return run
    }

    /// Skips `count` bytes.
    @inlinable
    mutating func skip(_ count: Int, _ field: StaticString = "padding") throws(PreflightError) {
        _ = try readBytes(count, field)
    }

    /// Reads everything that is left.
    @inlinable
    mutating func readRest() -> ArraySlice<UInt8> {
        let rest = bytes
        bytes = bytes[bytes.endIndex...]
        return rest
    }
}

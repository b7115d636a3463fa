/// Reads big-endian (network order) integers and byte runs from a slice, checking every length.
///
/// Every read either returns a value or throws ``PreflightError`` with code
/// ``PreflightError/Code/truncated``: decoding never traps on short or hostile input.
///
/// The reader advances an index over a slice it never changes, so reading integers does no
/// reference counting; only the runs returned by ``readBytes(_:_:)`` and ``readRest()`` retain
/// the underlying storage.
@usableFromInline
struct ByteReader {
    /// The whole input.
    @usableFromInline let bytes: ArraySlice<UInt8>
    /// Index of the next byte to read.
    @usableFromInline private(set) var index: Int
    /// Names the format in error messages, e.g. "RTP" or "STUN".
    @usableFromInline let context: StaticString

    @inlinable
    init(_ bytes: ArraySlice<UInt8>, context: StaticString) {
        self.bytes = bytes
        self.index = bytes.startIndex
        self.context = context
    }

    @inlinable
    init(_ bytes: [UInt8], context: StaticString) {
        self.init(bytes[...], context: context)
    }

    /// How many bytes are left.
    @inlinable var remaining: Int { bytes.endIndex &- index }
    /// Offset of the next byte from the start of the input.
    @inlinable var offset: Int { index &- bytes.startIndex }
    /// Whether every byte was read.
    @inlinable var isAtEnd: Bool { index >= bytes.endIndex }

    @inlinable
    func truncated(_ needed: Int, _ field: StaticString) -> PreflightError {
        PreflightError(
            code: .truncated,
            message: "\(context): truncated \(field): need \(needed) byte(s) at offset \(offset), \(remaining) left"
        )
    }

    @inlinable
    mutating func readUInt8(_ field: StaticString = "field") throws(PreflightError) -> UInt8 {
        guard index < bytes.endIndex else { throw truncated(1, field) }
        let value = bytes[index]
        index &+= 1
        return value
    }

    @inlinable
    mutating func readUInt16(_ field: StaticString = "field") throws(PreflightError) -> UInt16 {
        guard remaining >= 2 else { throw truncated(2, field) }
        let value = UInt16(bytes[index]) << 8 | UInt16(bytes[index &+ 1])
        index &+= 2
        return value
    }

    @inlinable
    mutating func readUInt24(_ field: StaticString = "field") throws(PreflightError) -> UInt32 {
        guard remaining >= 3 else { throw truncated(3, field) }
        let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index &+ 1]) << 8 | UInt32(bytes[index &+ 2])
        index &+= 3
        return value
    }

    @inlinable
    mutating func readUInt32(_ field: StaticString = "field") throws(PreflightError) -> UInt32 {
        guard remaining >= 4 else { throw truncated(4, field) }
        let value =
            UInt32(bytes[index]) << 24 | UInt32(bytes[index &+ 1]) << 16 | UInt32(bytes[index &+ 2]) << 8
            | UInt32(bytes[index &+ 3])
        index &+= 4
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
        guard count >= 0, remaining >= count else { throw truncated(count, field) }
        let end = index &+ count
        let run = bytes[index..<end]
        index = end
        return run
    }

    /// Skips `count` bytes.
    @inlinable
    mutating func skip(_ count: Int, _ field: StaticString = "padding") throws(PreflightError) {
        guard count >= 0, remaining >= count else { throw truncated(count, field) }
        index &+= count
    }

    /// Reads everything that is left.
    @inlinable
    mutating func readRest() -> ArraySlice<UInt8> {
        let rest = bytes[index...]
        index = bytes.endIndex
        return rest
    }
}

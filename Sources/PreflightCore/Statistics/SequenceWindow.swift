/// 1,024 bits, one per recent extended sequence number, held inline (16 words) rather than in a
/// heap array: a stream's ``ReceiveStatistics`` is then one value, and the edge updating a
/// session's statistics touches no second object elsewhere in memory (a cache miss per packet
/// at a thousand sessions).
@usableFromInline
struct SequenceWindow: Sendable, Hashable {
    @usableFromInline var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                                  UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    @inlinable init() {}

    /// Word `index` modulo 16: an index cannot reach outside the window.
    @inlinable subscript(index: Int) -> UInt64 {
        get { withUnsafeBytes(of: words) { $0.load(fromByteOffset: (index & 15) &* 8, as: UInt64.self) } }
        set { withUnsafeMutableBytes(of: &words) { $0.storeBytes(of: newValue, toByteOffset: (index & 15) &* 8, as: UInt64.self) } }
    }

    /// Clears every bit.
    @inlinable mutating func clear() {
        words = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    }

    @inlinable static func == (lhs: SequenceWindow, rhs: SequenceWindow) -> Bool {
        withUnsafeBytes(of: lhs.words) { left in withUnsafeBytes(of: rhs.words) { right in left.elementsEqual(right) } }
    }

    @inlinable func hash(into hasher: inout Hasher) {
        withUnsafeBytes(of: words) { hasher.combine(bytes: $0) }
    }
}

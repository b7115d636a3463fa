import CPreflightSHA1

/// SHA-1 (FIPS 180-4) as a plain value type, for HMAC-SHA1 in STUN MESSAGE-INTEGRITY.
///
/// The state is five words and a partial block, so the prepared inner and outer HMAC states are
/// copied per message for free; the compression runs in C (the x86 SHA extensions where the
/// processor has them). swift-crypto's `Insecure.SHA1` keeps its state in a heap-allocated context
/// on Linux, which made every HMAC cost four allocations. Tests compare it with swift-crypto.
@usableFromInline
struct SHA1: IncrementalHash, Sendable {
    @usableFromInline static let blockByteCount = 64

    @usableFromInline var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
    )
    /// Bytes fed so far.
    @usableFromInline var length: UInt64 = 0
    /// The partial block not yet compressed (the first `length % 64` bytes are valid).
    @usableFromInline var pending = SIMD64<UInt8>()

    @inlinable
    init() {}

    /// Whether the compression uses the processor's SHA instructions.
    static var usesHardware: Bool { preflight_sha1_uses_hardware() != 0 }

    @inlinable
    mutating func compress(_ blocks: UnsafeRawPointer, count: Int) {
        withUnsafeMutableBytes(of: &state) { words in
            // The state is 20 bytes, so its buffer always has an address.
            guard let words = words.baseAddress else { return }
            preflight_sha1_compress(
                words.assumingMemoryBound(to: UInt32.self), blocks.assumingMemoryBound(to: UInt8.self), count)
        }
    }

    @inlinable
    mutating func update(bufferPointer input: UnsafeRawBufferPointer) {
        guard let base = input.baseAddress, input.count > 0 else { return }
        var index = 0
        let used = Int(length & 63)
        length &+= UInt64(input.count)
        if used > 0 {
            let take = min(64 - used, input.count)
            withUnsafeMutableBytes(of: &pending) { block in
                UnsafeMutableRawBufferPointer(rebasing: block[used..<(used + take)]).copyMemory(
                    from: UnsafeRawBufferPointer(start: base, count: take))
            }
            index = take
            if used + take < 64 { return }
            var block = pending
            withUnsafeBytes(of: &block) { bytes in
                if let base = bytes.baseAddress { compress(base, count: 1) }
            }
        }
        let whole = (input.count - index) / 64
        if whole > 0 {
            compress(base + index, count: whole)
            index += whole * 64
        }
        if index < input.count {
            let rest = input.count - index
            withUnsafeMutableBytes(of: &pending) { block in
                UnsafeMutableRawBufferPointer(rebasing: block[0..<rest]).copyMemory(
                    from: UnsafeRawBufferPointer(start: base + index, count: rest))
            }
        }
    }

    @inlinable
    func finalize<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        var copy = self
        let bitLength = length &* 8
        let used = Int(length & 63)
        // 0x80, zeros to 56 mod 64, then the 64-bit big-endian bit length: one or two more blocks.
        var tail = SIMD64<UInt8>()
        let padLength = used < 56 ? 56 - used : 120 - used
        withUnsafeMutableBytes(of: &tail) { bytes in
            bytes[0] = 0x80
            copy.update(bufferPointer: UnsafeRawBufferPointer(rebasing: bytes[0..<padLength]))
        }
        var lengthBytes = bitLength.bigEndian
        withUnsafeBytes(of: &lengthBytes) { copy.update(bufferPointer: $0) }
        var digest = (
            copy.state.0.bigEndian, copy.state.1.bigEndian, copy.state.2.bigEndian, copy.state.3.bigEndian,
            copy.state.4.bigEndian
        )
        return withUnsafeBytes(of: &digest) { body($0) }
    }
}

/// HMAC (RFC 2104) with the key's inner and outer pads absorbed once, so each message costs only
/// its own hashing. Copying the prepared states per message must be cheap: with ``SHA1`` it is a
/// copy of a few words (swift-crypto's hashers allocate there on Linux).
@usableFromInline
struct KeyedHash<H: IncrementalHash> {
    @usableFromInline let inner: H
    @usableFromInline let outer: H

    @inlinable
    init(key: [UInt8]) {
        var block = key
        if key.count > H.blockByteCount {
            var hasher = H()
            key.withUnsafeBytes { hasher.update(bufferPointer: $0) }
            block = hasher.finalize { Array($0) }
        }
        block += repeatElement(0, count: H.blockByteCount - block.count)
        var inner = H()
        var outer = H()
        block.map { $0 ^ 0x36 }.withUnsafeBytes { inner.update(bufferPointer: $0) }
        block.map { $0 ^ 0x5C }.withUnsafeBytes { outer.update(bufferPointer: $0) }
        self.inner = inner
        self.outer = outer
    }

    /// The MAC of the bytes that `feed` gives to the hasher, passed to `result` without copying.
    @inlinable
    func authenticate<R>(_ feed: (inout H) -> Void, _ result: (UnsafeRawBufferPointer) -> R) -> R {
        var hasher = inner
        feed(&hasher)
        var outerHasher = outer
        hasher.finalize { outerHasher.update(bufferPointer: $0) }
        return outerHasher.finalize { result($0) }
    }
}

extension KeyedHash: Sendable where H: Sendable {}

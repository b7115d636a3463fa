import Crypto
// Only for the byte-buffer conformances (ContiguousBytes, DataProtocol) swift-crypto's API takes.
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// HMAC (RFC 2104) over a swift-crypto hash function, with the key's inner and outer pads absorbed
/// once. Each message then costs only its own hashing, fed through the hash's non-generic
/// `update(bufferPointer:)`; swift-crypto's `HMAC.update(data:)` goes through a generic
/// `DataProtocol` path whose runtime metadata lookups dominated a STUN check.
@usableFromInline
struct KeyedHash<H: HashFunction>: @unchecked Sendable {
    // @unchecked: swift-crypto's hash functions are value types holding only their digest state
    // (copied on write).
    @usableFromInline let inner: H
    @usableFromInline let outer: H

    @inlinable
    init(key: [UInt8]) {
        var block = key.count > H.blockByteCount ? H.hash(data: key).withUnsafeBytes { Array($0) } : key
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
        let innerDigest = hasher.finalize()
        var outerHasher = outer
        innerDigest.withUnsafeBytes { outerHasher.update(bufferPointer: $0) }
        return outerHasher.finalize().withUnsafeBytes { result($0) }
    }
}

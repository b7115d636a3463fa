import Crypto
// Only for the byte-buffer conformances (ContiguousBytes) swift-crypto's digests use.
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A hash function fed in pieces: what ``KeyedHash`` needs for HMAC.
@usableFromInline
protocol IncrementalHash {
    /// Input block size of the compression function, bytes (64 for SHA-1 and SHA-256).
    static var blockByteCount: Int { get }
    /// A fresh hasher.
    init()
    /// Feeds bytes.
    mutating func update(bufferPointer: UnsafeRawBufferPointer)
    /// Finishes the hash and passes the digest to `body`.
    func finalize<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R
}

extension SHA256: IncrementalHash {
    @inlinable
    func finalize<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        finalize().withUnsafeBytes { body($0) }
    }
}

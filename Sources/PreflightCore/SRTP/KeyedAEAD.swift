import CPreflightAEAD

/// AES-128-GCM with its key set up once, in the system's OpenSSL 3 libcrypto loaded at run time
/// (`preflight_aead.h`): after the first packet each way (which makes that way's context), a
/// packet sets only its IV, works on the caller's memory and allocates nothing. `nil` where libcrypto is not there (or not Linux): ``SRTPContext`` then
/// uses swift-crypto, which gives the same bytes.
///
/// Sendable: the C object serialises its operations with a lock of its own, and a copy of an
/// ``SRTPContext`` shares this object, not its state (each operation sets its whole IV).
final class KeyedAEAD: @unchecked Sendable {
    private let object: OpaquePointer

    /// Sets `key` (16 bytes) up; `nil` when libcrypto cannot be loaded or refuses it.
    init?(key: [UInt8]) {
        guard let object = key.withUnsafeBufferPointer({ key in
            key.baseAddress.flatMap { preflight_aead_create($0, key.count) }
        }) else { return nil }
        self.object = object
    }

    deinit {
        preflight_aead_destroy(object)
    }

    /// Encrypts `data` in place, authenticating `aad` with it, and writes the 16-byte tag to
    /// `tag`. `iv` has 12 bytes. `false` when libcrypto refused.
    func seal(iv: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer, data: UnsafeMutableRawBufferPointer, tag: UnsafeMutableRawBufferPointer) -> Bool {
        guard iv.count == 12, tag.count >= SRTPContext.rtpOverhead, let ivBase = iv.baseAddress, let tagBase = tag.baseAddress else { return false }
        return preflight_aead_seal(
            object, ivBase.assumingMemoryBound(to: UInt8.self), aad.baseAddress?.assumingMemoryBound(to: UInt8.self), aad.count,
            data.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count, tagBase.assumingMemoryBound(to: UInt8.self)) == 0
    }

    /// Decrypts `ciphertext` into `output` (as long, the same memory or apart) once the 16-byte
    /// `tag` matches over `aad` and the ciphertext. `false` when it does not: `output` is then
    /// garbage.
    func open(
        iv: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer, ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) -> Bool {
        guard iv.count == 12, tag.count == SRTPContext.rtpOverhead, output.count >= ciphertext.count, let ivBase = iv.baseAddress,
            let tagBase = tag.baseAddress
        else { return false }
        return preflight_aead_open(
            object, ivBase.assumingMemoryBound(to: UInt8.self), aad.baseAddress?.assumingMemoryBound(to: UInt8.self), aad.count,
            ciphertext.baseAddress?.assumingMemoryBound(to: UInt8.self), ciphertext.count, tagBase.assumingMemoryBound(to: UInt8.self),
            output.baseAddress?.assumingMemoryBound(to: UInt8.self)) == 0
    }
}

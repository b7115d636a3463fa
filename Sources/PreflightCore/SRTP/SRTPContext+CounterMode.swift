import Crypto
import CryptoExtras
// Only for the byte-buffer conformances (DataProtocol, Data) swift-crypto's API takes and returns.
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// AES_CM_128_HMAC_SHA1_80 (RFC 3711 §4.1.1, §4.2.1): what differs from the AEAD profile. The
/// payload is encrypted with AES in counter mode, and an HMAC-SHA1 over the packet (and, for
/// SRTP, the rollover counter) cut to 80 bits authenticates it; a receiver checks the tag before
/// it decrypts anything.
extension SRTPContext {
    /// The counter-mode IV: (salt · 2^16) XOR (SSRC · 2^64) XOR (index · 2^16), 16 bytes whose
    /// last two (the block counter) start at 0. `index` is SRTP's 48-bit one or SRTCP's 31-bit one.
    static func counterModeIV(ssrc: UInt32, index: UInt64, salt: [UInt8]) -> [UInt8] {
        var iv = [UInt8](repeating: 0, count: 16)
        for byte in 0..<4 { iv[4 &+ byte] = UInt8(truncatingIfNeeded: ssrc >> (24 &- 8 &* UInt32(byte))) }
        for byte in 0..<6 { iv[8 &+ byte] = UInt8(truncatingIfNeeded: index >> (40 &- 8 &* UInt64(byte))) }
        for byte in 0..<min(14, salt.count) { iv[byte] ^= salt[byte] }
        return iv
    }

    /// `data` XORed in place with the AES-CM key stream from `iv` (encryption and decryption alike).
    static func applyKeyStream(
        _ data: UnsafeMutableRawBufferPointer, key: SymmetricKey, iv: [UInt8], context: StaticString
    ) throws(PreflightError) {
        guard !data.isEmpty else { return }
        do {
            let stream = try AES._CTR.encrypt(UnsafeRawBufferPointer(data), using: key, nonce: AES._CTR.Nonce(nonceBytes: iv))
            stream.withUnsafeBytes { data.copyMemory(from: $0) }
        } catch {
            throw PreflightError(code: .invalidArgument, message: "\(context): AES-CM refused the packet", underlying: error)
        }
    }

    /// ``applyKeyStream(_:key:iv:context:)`` on `bytes[range]`.
    static func applyKeyStream(
        _ bytes: inout [UInt8], _ range: Range<Int>, key: SymmetricKey, iv: [UInt8], context: StaticString
    ) throws(PreflightError) {
        // Array's closures rethrow untyped errors: the error is carried out by hand.
        var failure: PreflightError?
        bytes.withUnsafeMutableBytes { buffer in
            do throws(PreflightError) {
                try applyKeyStream(UnsafeMutableRawBufferPointer(rebasing: buffer[range]), key: key, iv: iv, context: context)
            } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// HMAC-SHA1 of `authenticated` followed by `trailer` (big-endian: SRTP's rollover counter, or
    /// nothing), cut to `length` bytes.
    static func counterModeTag(
        key: SymmetricKey, _ authenticated: UnsafeRawBufferPointer, trailer: UInt32?, length: Int
    ) -> [UInt8] {
        var hmac = HMAC<Insecure.SHA1>(key: key)
        hmac.update(data: authenticated)
        if let trailer { hmac.update(data: bigEndian(trailer)) }
        return Array(Array(hmac.finalize()).prefix(length))
    }

    /// Whether `tag` matches `expected`, in time that does not depend on where they differ.
    static func tagsMatch(_ tag: UnsafeRawBufferPointer, _ expected: [UInt8]) -> Bool {
        guard tag.count == expected.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<expected.count { difference |= tag[index] ^ expected[index] }
        return difference == 0
    }
}

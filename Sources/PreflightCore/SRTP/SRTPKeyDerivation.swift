import Crypto
import CryptoExtras

/// The SRTP key derivation function (RFC 3711 §4.3) with the AES-CM PRF (§4.3.3) and a key
/// derivation rate of 0, which is what RFC 7714 §12 prescribes for the AEAD profiles and the
/// default of RFC 3711 for the counter-mode one.
enum SRTPKeyDerivation {
    /// The labels of RFC 3711 §4.3.2. The AEAD profiles use no authentication keys; the
    /// counter-mode profile's HMAC keys are 160 bits, longer than one AES block.
    enum Label: UInt8 {
        case rtpEncryption = 0x00
        case rtpAuthentication = 0x01
        case rtpSalt = 0x02
        case rtcpEncryption = 0x03
        case rtcpAuthentication = 0x04
        case rtcpSalt = 0x05
    }

    /// The longest salt the AES-CM PRF takes: 112 bits, followed by the 16-bit block counter.
    static let maximumSaltLength = 14

    /// `count` bytes of the PRF's key stream for `label`.
    ///
    /// x = key_id XOR master_salt, with key_id = label ‖ 48 zero bits (r = 0 with rate 0) aligned
    /// to the salt's last 56 of 112 bits; the key stream is AES(master key, x ‖ counter) for
    /// counter = 0, 1, …. A salt shorter than 112 bits (RFC 7714's 96) is padded with zero bits
    /// on the right, so the label still lands in octet 7.
    /// - Throws: ``PreflightError`` `.invalidArgument` for a key AES does not take or a salt longer than 14 bytes.
    static func derive(
        _ label: Label, masterKey: [UInt8], masterSalt: [UInt8], count: Int
    ) throws(PreflightError) -> [UInt8] {
        guard masterSalt.count <= maximumSaltLength, count >= 0, count <= 16 * 65_536 else {
            throw PreflightError(
                code: .invalidArgument, message: "SRTP: key derivation needs a salt of at most 14 bytes, got \(masterSalt.count)")
        }
        let key = SymmetricKey(data: masterKey)
        var x = [UInt8](repeating: 0, count: 16)
        x.replaceSubrange(0..<masterSalt.count, with: masterSalt)
        x[7] ^= label.rawValue
        var output: [UInt8] = []
        output.reserveCapacity(count &+ 16)
        var counter: UInt16 = 0
        while output.count < count {
            var block = x
            block[14] = UInt8(truncatingIfNeeded: counter >> 8)
            block[15] = UInt8(truncatingIfNeeded: counter)
            do {
                try AES.permute(&block, key: key)
            } catch {
                throw PreflightError(
                    code: .invalidArgument, message: "SRTP: key derivation refused a \(masterKey.count)-byte master key",
                    underlying: error)
            }
            output.append(contentsOf: block)
            counter &+= 1
        }
        return Array(output.prefix(count))
    }
}

// Only for base64 (Data) of the keying material's signaling form.
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The master key and master salt of an SRTP session (RFC 3711 §8.1), as one end generates them
/// and signaling carries them to the other end.
///
/// The session keys that protect packets are derived from it (``SRTPSessionKeys``). Its
/// ``description`` never shows the key.
public struct SRTPKeyingMaterial: Sendable, CustomStringConvertible {
    /// The profile the key and salt lengths belong to.
    public let profile: SRTPProfile
    /// The master key, ``SRTPProfile/keyLength`` bytes.
    public let masterKey: [UInt8]
    /// The master salt, ``SRTPProfile/saltLength`` bytes.
    public let masterSalt: [UInt8]

    /// Creates keying material from a key and salt.
    /// - Throws: ``PreflightError`` `.invalidArgument` when a length does not fit the profile.
    public init(masterKey: [UInt8], masterSalt: [UInt8], profile: SRTPProfile = .aeadAES128GCM) throws(PreflightError) {
        guard masterKey.count == profile.keyLength, masterSalt.count == profile.saltLength else {
            throw PreflightError(
                code: .invalidArgument,
                message: "SRTP: \(profile.rawValue) needs a \(profile.keyLength)-byte master key and a \(profile.saltLength)-byte master salt, got \(masterKey.count) and \(masterSalt.count)")
        }
        self.profile = profile
        self.masterKey = masterKey
        self.masterSalt = masterSalt
    }

    /// Fresh keying material from the system's cryptographically secure generator.
    public static func random(profile: SRTPProfile = .aeadAES128GCM) -> SRTPKeyingMaterial {
        var generator = SystemRandomNumberGenerator()
        let key = (0..<profile.keyLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let salt = (0..<profile.saltLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        // The lengths come from the profile, so the checking initializer cannot refuse them.
        return SRTPKeyingMaterial(unchecked: key, salt: salt, profile: profile)
    }

    private init(unchecked key: [UInt8], salt: [UInt8], profile: SRTPProfile) {
        self.profile = profile
        self.masterKey = key
        self.masterSalt = salt
    }

    /// Parses the signaling form: base64 (with padding) of key ‖ salt, as in SDES's
    /// `inline:` key parameter (RFC 4568 §6.1).
    /// - Throws: ``PreflightError`` `.malformed` when the text is not base64 or does not decode to
    ///   exactly key plus salt bytes for `profile`.
    public init(base64 text: String, profile: SRTPProfile = .aeadAES128GCM) throws(PreflightError) {
        let expected = profile.keyLength + profile.saltLength
        // Bounded before decoding: hostile signaling must not make us decode megabytes.
        guard text.utf8.count <= 4 * ((expected + 2) / 3), let data = Data(base64Encoded: text) else {
            throw PreflightError(code: .malformed, message: "SRTP: keying material is not base64 of \(expected) bytes")
        }
        guard data.count == expected else {
            throw PreflightError(
                code: .malformed, message: "SRTP: keying material is \(data.count) bytes, \(profile.rawValue) needs \(expected)")
        }
        let bytes = [UInt8](data)
        self.init(unchecked: Array(bytes[..<profile.keyLength]), salt: Array(bytes[profile.keyLength...]), profile: profile)
    }

    /// The signaling form: base64 of master key ‖ master salt.
    public var base64: String { Data(masterKey + masterSalt).base64EncodedString() }

    /// Names the profile only; the key stays out of logs.
    public var description: String { "SRTPKeyingMaterial(\(profile.rawValue), redacted)" }
}

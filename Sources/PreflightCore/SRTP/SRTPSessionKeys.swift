/// The session keys and salts that protect SRTP and SRTCP packets, derived from the master key
/// and salt (RFC 3711 §4.3, RFC 7714 §12) or given directly (as RFC 7714 §16's test vectors are);
/// with the counter-mode profile, the HMAC keys as well.
public struct SRTPSessionKeys: Sendable, CustomStringConvertible {
    /// The profile the keys belong to.
    public let profile: SRTPProfile
    /// The SRTP encryption key (label 0x00).
    public let rtpKey: [UInt8]
    /// The SRTP salt (label 0x02), XORed into every SRTP IV.
    public let rtpSalt: [UInt8]
    /// The SRTCP encryption key (label 0x03).
    public let rtcpKey: [UInt8]
    /// The SRTCP salt (label 0x05), XORed into every SRTCP IV.
    public let rtcpSalt: [UInt8]
    /// The SRTP authentication key (label 0x01): empty for an AEAD profile.
    public let rtpAuthenticationKey: [UInt8]
    /// The SRTCP authentication key (label 0x04): empty for an AEAD profile.
    public let rtcpAuthenticationKey: [UInt8]

    /// Session keys given directly.
    /// - Throws: ``PreflightError`` `.invalidArgument` when a key or salt length does not fit the profile.
    public init(
        rtpKey: [UInt8], rtpSalt: [UInt8], rtcpKey: [UInt8], rtcpSalt: [UInt8], profile: SRTPProfile = .aeadAES128GCM,
        rtpAuthenticationKey: [UInt8] = [], rtcpAuthenticationKey: [UInt8] = []
    ) throws(PreflightError) {
        guard rtpKey.count == profile.keyLength, rtcpKey.count == profile.keyLength,
            rtpSalt.count == profile.saltLength, rtcpSalt.count == profile.saltLength,
            rtpAuthenticationKey.count == profile.authenticationKeyLength,
            rtcpAuthenticationKey.count == profile.authenticationKeyLength
        else {
            throw PreflightError(
                code: .invalidArgument,
                message: "SRTP: \(profile.rawValue) session keys are \(profile.keyLength) bytes, salts \(profile.saltLength) and authentication keys \(profile.authenticationKeyLength)")
        }
        self.profile = profile
        self.rtpKey = rtpKey
        self.rtpSalt = rtpSalt
        self.rtcpKey = rtcpKey
        self.rtcpSalt = rtcpSalt
        self.rtpAuthenticationKey = rtpAuthenticationKey
        self.rtcpAuthenticationKey = rtcpAuthenticationKey
    }

    /// Derives the four session values from the master key and salt, with key derivation rate 0.
    /// - Throws: ``PreflightError`` `.invalidArgument` if the cipher refuses the key (it does not
    ///   for a valid ``SRTPKeyingMaterial``).
    public init(deriving material: SRTPKeyingMaterial) throws(PreflightError) {
        let profile = material.profile
        func derive(_ label: SRTPKeyDerivation.Label, _ count: Int) throws(PreflightError) -> [UInt8] {
            try SRTPKeyDerivation.derive(label, masterKey: material.masterKey, masterSalt: material.masterSalt, count: count)
        }
        let authentication = profile.authenticationKeyLength
        try self.init(
            rtpKey: derive(.rtpEncryption, profile.keyLength), rtpSalt: derive(.rtpSalt, profile.saltLength),
            rtcpKey: derive(.rtcpEncryption, profile.keyLength), rtcpSalt: derive(.rtcpSalt, profile.saltLength),
            profile: profile,
            rtpAuthenticationKey: authentication > 0 ? derive(.rtpAuthentication, authentication) : [],
            rtcpAuthenticationKey: authentication > 0 ? derive(.rtcpAuthentication, authentication) : [])
    }

    /// Names the profile only; the keys stay out of logs.
    public var description: String { "SRTPSessionKeys(\(profile.rawValue), redacted)" }
}

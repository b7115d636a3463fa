/// An SRTP protection profile: the cipher, key and salt sizes both ends agree on in signaling or
/// in DTLS's `use_srtp` extension (RFC 5764 §4.1.2).
public enum SRTPProfile: String, Sendable, Hashable, CaseIterable {
    /// AEAD_AES_128_GCM (RFC 7714 §14.2): AES-128 in Galois/Counter Mode, a 16-byte tag,
    /// a 16-byte master key and a 12-byte master salt. What the SDK's calls speak.
    case aeadAES128GCM = "AEAD_AES_128_GCM"
    /// AES_CM_128_HMAC_SHA1_80 (RFC 3711 §5, RFC 4568 §6.2.1): AES-128 in counter mode and an
    /// HMAC-SHA1 tag cut to 80 bits, a 16-byte master key and a 14-byte master salt. What every
    /// browser offers over DTLS-SRTP (SRTP_AES128_CM_SHA1_80, RFC 5764 §4.1.2).
    case aesCM128HMACSHA1_80 = "AES_CM_128_HMAC_SHA1_80"

    /// Length of the master key and of the derived session keys (bytes).
    public var keyLength: Int { 16 }
    /// Length of the master salt and of the derived session salts (bytes).
    public var saltLength: Int {
        switch self {
        case .aeadAES128GCM: 12
        case .aesCM128HMACSHA1_80: 14
        }
    }
    /// Length of the authentication tag appended to every packet (bytes).
    public var tagLength: Int {
        switch self {
        case .aeadAES128GCM: 16
        case .aesCM128HMACSHA1_80: 10
        }
    }
    /// Length of the derived authentication keys (bytes): none for an AEAD profile, whose cipher
    /// authenticates; HMAC-SHA1's 160 bits for the counter-mode one.
    public var authenticationKeyLength: Int {
        switch self {
        case .aeadAES128GCM: 0
        case .aesCM128HMACSHA1_80: 20
        }
    }
    /// Bytes SRTP adds to an RTP packet: the tag.
    public var rtpOverhead: Int { tagLength }
    /// Bytes SRTCP adds to an RTCP packet: the E flag ‖ SRTCP index word and the tag.
    public var rtcpOverhead: Int { 4 + tagLength }
}

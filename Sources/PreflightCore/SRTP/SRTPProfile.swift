/// An SRTP protection profile: the cipher, key and salt sizes both ends agree on in signaling.
///
/// Only the AEAD profile of RFC 7714 is implemented: one AES-GCM operation both encrypts and
/// authenticates, so there is no separate authentication key or HMAC tag.
public enum SRTPProfile: String, Sendable, Hashable, CaseIterable {
    /// AEAD_AES_128_GCM (RFC 7714 §14.2): AES-128 in Galois/Counter Mode, a 16-byte tag,
    /// a 16-byte master key and a 12-byte master salt.
    case aeadAES128GCM = "AEAD_AES_128_GCM"

    /// Length of the master key and of the derived session keys (bytes).
    public var keyLength: Int { 16 }
    /// Length of the master salt and of the derived session salts (bytes).
    public var saltLength: Int { 12 }
    /// Length of the authentication tag appended to every packet (bytes).
    public var tagLength: Int { 16 }
}

extension RTPHeaderExtension {
    /// The layout of an extension's data, from its profile.
    public enum Kind: Sendable, Hashable {
        /// RFC 8285 §4.2 one-byte headers (profile `0xBEDE`).
        case oneByte
        /// RFC 8285 §4.3 two-byte headers (profile `0x1000`–`0x100F`), with the 4 application bits.
        case twoByte(appBits: UInt8)
        /// Any other profile: the data is not interpreted.
        case opaque
    }
}

/// A STUN method (RFC 8489 §5): the 12-bit operation a message belongs to.
///
/// An open set: methods defined by later RFCs can be created from their number.
public struct STUNMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 12-bit method number (0x000–0xFFF). Higher bits are dropped when encoding.
    public var rawValue: UInt16

    /// Creates a method from its number. Only the low 12 bits are used on the wire.
    @inlinable
    public init(rawValue: UInt16) {
        self.rawValue = rawValue & 0x0FFF
    }

    /// Binding (0x001, RFC 8489): reflexive address discovery and ICE connectivity checks.
    public static let binding = Self(rawValue: 0x001)
    /// Allocate (0x003, RFC 8656): reserves a relayed transport address on a TURN server.
    public static let allocate = Self(rawValue: 0x003)
    /// Refresh (0x004, RFC 8656): extends or deletes a TURN allocation.
    public static let refresh = Self(rawValue: 0x004)
    /// Send (0x006, RFC 8656): an indication carrying data to a peer through the relay.
    public static let send = Self(rawValue: 0x006)
    /// Data (0x007, RFC 8656): an indication carrying data from a peer through the relay.
    public static let data = Self(rawValue: 0x007)
    /// CreatePermission (0x008, RFC 8656): installs permissions for peer addresses.
    public static let createPermission = Self(rawValue: 0x008)
    /// ChannelBind (0x009, RFC 8656): binds a channel number to a peer address.
    public static let channelBind = Self(rawValue: 0x009)

    /// The method name, e.g. "Binding", or its number in hex for other methods.
    public var description: String {
        switch rawValue {
        case 0x001: "Binding"
        case 0x003: "Allocate"
        case 0x004: "Refresh"
        case 0x006: "Send"
        case 0x007: "Data"
        case 0x008: "CreatePermission"
        case 0x009: "ChannelBind"
        default: "0x" + String(rawValue, radix: 16)
        }
    }
}

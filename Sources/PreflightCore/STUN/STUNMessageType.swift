/// The 14-bit STUN message type (RFC 8489 §5): a method and a class, interleaved on the wire as
/// `M11..M7 C1 M6..M4 C0 M3..M0`.
public struct STUNMessageType: Hashable, Sendable, CustomStringConvertible {
    /// The operation, e.g. ``STUNMethod/binding``.
    public var method: STUNMethod
    /// Request, indication, success or error response.
    public var messageClass: STUNClass

    /// Creates a message type.
    @inlinable
    public init(method: STUNMethod, class messageClass: STUNClass) {
        self.method = method
        self.messageClass = messageClass
    }

    /// Splits a 16-bit type field into method and class. The two most significant bits, which are
    /// always zero in a STUN message, are ignored here (the message decoder checks them).
    @inlinable
    public init(rawValue: UInt16) {
        let m = (rawValue & 0x000F) | ((rawValue & 0x00E0) >> 1) | ((rawValue & 0x3E00) >> 2)
        let c = ((rawValue & 0x0010) >> 4) | ((rawValue & 0x0100) >> 7)
        method = STUNMethod(rawValue: m)
        messageClass = STUNClass(rawValue: UInt8(truncatingIfNeeded: c)) ?? .request
    }

    /// The 16-bit type field as sent on the wire (the two most significant bits are zero).
    @inlinable
    public var rawValue: UInt16 {
        let m = method.rawValue
        let c = UInt16(messageClass.rawValue)
        return (m & 0x000F) | ((m & 0x0070) << 1) | ((m & 0x0F80) << 2) | ((c & 0b01) << 4) | ((c & 0b10) << 7)
    }

    /// Binding request (0x0001).
    public static let bindingRequest = Self(method: .binding, class: .request)
    /// Binding success response (0x0101).
    public static let bindingSuccess = Self(method: .binding, class: .successResponse)
    /// Binding error response (0x0111).
    public static let bindingError = Self(method: .binding, class: .errorResponse)
    /// Binding indication (0x0011), used for ICE keepalives.
    public static let bindingIndication = Self(method: .binding, class: .indication)

    /// For example "Binding request".
    public var description: String {
        let name =
            switch messageClass {
            case .request: "request"
            case .indication: "indication"
            case .successResponse: "success response"
            case .errorResponse: "error response"
            }
        return "\(method) \(name)"
    }
}

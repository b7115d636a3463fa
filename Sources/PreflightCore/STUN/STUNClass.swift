/// The class of a STUN message (RFC 8489 §5): the two class bits C1 C0.
public enum STUNClass: UInt8, Hashable, Sendable, CaseIterable {
    /// 0b00: a request, answered by a success or error response.
    case request = 0b00
    /// 0b01: an indication, which gets no response.
    case indication = 0b01
    /// 0b10: a success response.
    case successResponse = 0b10
    /// 0b11: an error response, carrying ERROR-CODE.
    case errorResponse = 0b11
}

/// The value of a STUN ERROR-CODE attribute (RFC 8489 §14.8): a code from 300 to 699 and a reason.
public struct STUNErrorCode: Hashable, Sendable, CustomStringConvertible {
    /// The error code, class × 100 + number, e.g. 401. Must be 300–699 to be encodable.
    public var code: Int
    /// The UTF-8 reason phrase, e.g. "Unauthorized" (at most 128 characters per RFC 8489).
    public var reason: String

    /// Creates an error code value.
    public init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }

    /// 300 Try Alternate.
    public static let tryAlternate = Self(code: 300, reason: "Try Alternate")
    /// 400 Bad Request.
    public static let badRequest = Self(code: 400, reason: "Bad Request")
    /// 401 Unauthorized.
    public static let unauthorized = Self(code: 401, reason: "Unauthorized")
    /// 403 Forbidden (RFC 8656).
    public static let forbidden = Self(code: 403, reason: "Forbidden")
    /// 420 Unknown Attribute.
    public static let unknownAttribute = Self(code: 420, reason: "Unknown Attribute")
    /// 437 Allocation Mismatch (RFC 8656).
    public static let allocationMismatch = Self(code: 437, reason: "Allocation Mismatch")
    /// 438 Stale Nonce.
    public static let staleNonce = Self(code: 438, reason: "Stale Nonce")
    /// 441 Wrong Credentials (RFC 8656).
    public static let wrongCredentials = Self(code: 441, reason: "Wrong Credentials")
    /// 442 Unsupported Transport Protocol (RFC 8656).
    public static let unsupportedTransportProtocol = Self(code: 442, reason: "Unsupported Transport Protocol")
    /// 486 Allocation Quota Reached (RFC 8656).
    public static let allocationQuotaReached = Self(code: 486, reason: "Allocation Quota Reached")
    /// 487 Role Conflict (RFC 8445).
    public static let roleConflict = Self(code: 487, reason: "Role Conflict")
    /// 500 Server Error.
    public static let serverError = Self(code: 500, reason: "Server Error")
    /// 508 Insufficient Capacity (RFC 8656).
    public static let insufficientCapacity = Self(code: 508, reason: "Insufficient Capacity")

    /// For example "401 Unauthorized".
    public var description: String { "\(code) \(reason)" }
}

/// The one error type of Preflight.
///
/// Every failure carries a numeric ``code`` (vendor codes where the reference SDKs define one,
/// such as 31008 for a cancelled test, Preflight's own codes elsewhere), a human ``message``
/// and, where one exists, the ``underlying`` cause. Codes are an open set: compare with the
/// static members of ``Code`` rather than switching exhaustively.
public struct PreflightError: Error, Sendable, CustomStringConvertible {
    /// A numeric error code. Extensible: new codes can be added without breaking clients.
    public struct Code: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
        /// The numeric value, as reported in reports, logs and signaling messages.
        public var rawValue: Int

        /// Creates a code from its numeric value.
        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// Creates a code from its numeric value.
        public init(_ rawValue: Int) {
            self.rawValue = rawValue
        }

        /// The numeric value as text.
        public var description: String { String(rawValue) }
    }

    /// What went wrong, as a number.
    public var code: Code
    /// What went wrong, in words, with the values involved.
    public var message: String
    /// The error that caused this one, if any.
    public var underlying: (any Error)?

    /// Creates an error.
    /// - Parameters:
    ///   - code: the numeric code.
    ///   - message: a human-readable explanation with the values involved.
    ///   - underlying: the cause, if another error led to this one.
    public init(code: Code, message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// `"<code>: <message>"`, followed by the underlying error when there is one.
    public var description: String {
        if let underlying {
            return "\(code.rawValue): \(message) (\(underlying))"
        }
        return "\(code.rawValue): \(message)"
    }
}

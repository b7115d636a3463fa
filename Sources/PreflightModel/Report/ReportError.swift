/// The error that ended a test, in a partial report (an added field): its code and message.
public struct ReportError: Sendable, Hashable, Codable {
    /// The numeric code (docs/errors.md).
    public var code: Int
    /// What went wrong.
    public var message: String

    /// Creates the record.
    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    /// The record of `error`.
    public init(_ error: PreflightError) {
        self.init(code: error.code.rawValue, message: error.message)
    }
}

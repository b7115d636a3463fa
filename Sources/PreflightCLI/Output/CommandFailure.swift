import ArgumentParser
import PreflightCore

/// A ``PreflightError`` as the command line reports it: `error <code>: <message>` on standard error
/// and the exit status 1.
public struct CommandFailure: Error, CustomStringConvertible {
    /// The error that ended the command.
    public let error: PreflightError

    /// Wraps an error.
    public init(_ error: PreflightError) {
        self.error = error
    }

    /// `error <code>: <message>`.
    public var description: String { "error \(error.code.rawValue): \(error.message)" }
}

import ArgumentParser
import Foundation
import PreflightCore

/// A secret a command needs, from one of three places, so that it never has to be on a command
/// line (where `ps` shows it to every user of the machine): a file (`--…-file PATH`, its trailing
/// newline stripped), an environment variable, or, for compatibility, the option itself.
struct SecretOption {
    /// What the secret is, for messages: "API key secret".
    var name: String
    /// The option with the secret itself: "--api-secret".
    var valueFlag: String
    /// The option with a file holding it: "--api-secret-file".
    var fileFlag: String
    /// The environment variable: "PREFLIGHT_API_SECRET".
    var variable: String

    /// The rule "one source on the command line": the option and the file together are refused.
    /// - Throws: `ValidationError` naming both options.
    func refuseBoth(value: String?, file: String?) throws(ValidationError) {
        if value != nil, file != nil {
            throw ValidationError("give the \(name) once: \(valueFlag) or \(fileFlag), not both")
        }
    }

    /// The secret from the file, the option or the environment, in that order; `nil` when none
    /// of them gives one.
    /// - Throws: `ValidationError` when both the option and the file are given (see
    ///   ``refuseBoth(value:file:)``); ``CommandFailure`` with ``PreflightError``
    ///   `.fileUnreadable` when the file cannot be read, `.invalidArgument` when it is not text or
    ///   the secret is empty.
    func resolve(value: String?, file: String?, environment: [String: String]) throws -> String? {
        func failure(_ message: String) -> CommandFailure {
            CommandFailure(PreflightError(code: .invalidArgument, message: message))
        }
        try refuseBoth(value: value, file: file)
        let secret: String
        let source: String
        if let file {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw CommandFailure(PreflightError(
                    code: .fileUnreadable, message: "\(fileFlag) \(file): cannot read the \(name) file", underlying: error))
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw failure("\(fileFlag) \(file): the \(name) file is not UTF-8 text")
            }
            secret = Self.strippingTrailingNewlines(text)
            source = "\(fileFlag) \(file)"
        } else if let value {
            secret = value
            source = valueFlag
        } else if let text = environment[variable] {
            secret = text
            source = variable
        } else {
            return nil
        }
        guard !secret.isEmpty else { throw failure("the \(name) from \(source) is empty") }
        return secret
    }

    /// `text` without its trailing line breaks (`\n`, `\r\n`).
    static func strippingTrailingNewlines(_ text: String) -> String {
        var result = Substring(text)
        while let last = result.last, last == "\n" || last == "\r" || last == "\r\n" { result = result.dropLast() }
        return String(result)
    }
}

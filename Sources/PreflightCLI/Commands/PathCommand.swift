import ArgumentParser
import Foundation
import PreflightCore
import PreflightHTML

/// `preflight path`: a preflight test that diagnoses its path, printing where on the way to the
/// edge a problem starts (the report's `pathDiagnosis`); every option of `preflight run` applies.
public struct PathCommand: AsyncParsableCommand, Sendable {
    public static let configuration = CommandConfiguration(
        commandName: "path",
        abstract: "Find where on the way to the edge a problem starts: your Wi-Fi, your provider, or beyond.",
        discussion: """
            Runs a preflight test with --diagnose-path: UDP probes toward the edge's media address with \
            TTL 1, 2, 3… beside the test, within --path-probe-share of its packets. Prints each hop, \
            the segments and the verdict in plain words (--json: the report's pathDiagnosis). The \
            test's progress and summary go to standard error.
            """)

    /// The test's options (`preflight run`'s), `--diagnose-path` implied.
    @OptionGroup public var test: RunCommand

    /// Creates the command (ArgumentParser requirement).
    public init() {}

    public func run() async throws {
        var test = self.test
        test.path.diagnosePath = true
        let json = test.json
        test.json = false
        let outcome = await test.execute { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        } output: { text in
            FileHandle.standardError.write(Data((text + "\n").utf8))
        }
        if let diagnosis = outcome.report.pathDiagnosis {
            print(json ? ((try? JSONText.pretty(diagnosis)) ?? "null") : PathText.render(diagnosis))
        } else if json {
            print("null")
        }
        if let html = test.html {
            do {
                try Data(ReportHTML.render(outcome.report).utf8).write(to: URL(fileURLWithPath: html))
                FileHandle.standardError.write(Data("report page written to \(html)\n".utf8))
            } catch {
                throw CommandFailure(PreflightError(code: .fileUnwritable, message: "--html: cannot write \(html)", underlying: error))
            }
        }
        if let error = outcome.error { throw CommandFailure(error) }
    }
}

import Foundation
import PreflightCore

/// The outside programs and privileges some tests need (coturn's `turnserver`, `tshark`,
/// `openssl`, `python3`, root), and the one rule for when such a test runs.
///
/// The rule: under `CI=true` a test that needs a tool always runs, so a missing tool fails it
/// loudly; elsewhere it runs only when the tool is on `PATH` (or the process is root), and is
/// skipped otherwise, with the reason printed by the test runner. Use it in a trait:
///
/// ```swift
/// // Needs coturn: skipped without it outside CI, fails without it under CI=true.
/// @Suite(.enabled(if: ExternalTool.canRun(needing: "turnserver"), "needs coturn's turnserver (apt-get install coturn)"))
/// ```
public enum ExternalTool {
    /// Whether this is a CI run (`CI=true` in the environment): tests never skip there.
    public static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Whether the process runs as root (effective user id 0).
    public static var isRoot: Bool { geteuid() == 0 }

    /// The full path of executable `name` on `PATH`, or `nil` when it is not there.
    /// - Parameter name: the executable's file name, e.g. `"turnserver"`.
    public static func path(of name: String) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return directories
            .map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Whether executable `name` is on `PATH`.
    /// - Parameter name: the executable's file name.
    public static func isAvailable(_ name: String) -> Bool { path(of: name) != nil }

    /// Whether a test that needs every one of `tools` (and root, if `root`) should run: always
    /// under CI, elsewhere only when all are there.
    /// - Parameters:
    ///   - tools: executable names that must be on `PATH`.
    ///   - root: whether the test also needs root.
    public static func canRun(needing tools: String..., root: Bool = false) -> Bool {
        isCI || (tools.allSatisfy(isAvailable) && (!root || isRoot))
    }

    /// Runs `name` with `arguments` and returns its standard output.
    /// - Parameters:
    ///   - name: the executable's name, looked up on `PATH`.
    ///   - arguments: its arguments.
    ///   - standardInput: bytes written to its standard input (then closed); none by default.
    ///   - environment: variables added to this process's environment.
    /// - Throws: ``PreflightError`` `.invalidArgument` when the tool is missing, cannot start or
    ///   exits with a non-zero status (the message carries its standard error).
    ///
    /// The tool runs and is read on a thread of its own (``BlockingWork``): a tool that takes
    /// half a minute (a browser) must not hold one of the test process's few concurrency threads.
    public static func run(
        _ name: String, _ arguments: [String], standardInput: [UInt8] = [], environment: [String: String] = [:]
    ) async throws(PreflightError) -> String {
        try await BlockingWork.run("preflight.tool.\(name)") { () throws(PreflightError) -> String in
            try runBlocking(name, arguments, standardInput: standardInput, environment: environment)
        }
    }

    /// ``run(_:_:standardInput:environment:)`` on the caller's thread: only for short tools where
    /// no `await` can be (a `defer`).
    static func runBlocking(
        _ name: String, _ arguments: [String], standardInput: [UInt8] = [], environment: [String: String] = [:]
    ) throws(PreflightError) -> String {
        guard let path = path(of: name) else {
            throw PreflightError(code: .invalidArgument, message: "\(name) is not on PATH; CI must install it")
        }
        // Standard input and error go through temporary files and standard output is read to its
        // end before waiting, so no pipe can fill up and block the tool or this process.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("preflight-tool-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputURL = directory.appendingPathComponent("stdin")
        let errorURL = directory.appendingPathComponent("stderr")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        let output = Pipe()
        process.standardOutput = output
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(standardInput).write(to: inputURL)
            try Data().write(to: errorURL)
            process.standardInput = try FileHandle(forReadingFrom: inputURL)
            process.standardError = try FileHandle(forWritingTo: errorURL)
            try process.run()
        } catch {
            throw PreflightError(code: .invalidArgument, message: "cannot start \(path)", underlying: error)
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let errorText = (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
            throw PreflightError(
                code: .invalidArgument,
                message: "\(name) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(errorText)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}

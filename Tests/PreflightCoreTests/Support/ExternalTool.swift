import Foundation
import Testing

/// Finds and runs a command-line tool that a test uses as an outside reference (tshark, …).
///
/// Under `CI=true` a missing tool is a failure, never a silent skip; elsewhere the tests that need
/// it are disabled with a note saying so.
struct ExternalTool {
    let name: String
    let path: String?

    init(_ name: String) {
        self.name = name
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        path = directories
            .map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Whether a test that needs this tool should run: always under CI (where a missing tool then fails).
    var shouldRun: Bool { path != nil || Self.isCI }

    /// Runs the tool and returns its standard output; records an issue and throws when it is missing or fails.
    func run(_ arguments: [String]) throws -> String {
        guard let path else {
            Issue.record("\(name) is not installed: CI must install it (apt-get install \(name))")
            throw CocoaError(.fileNoSuchFile)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read before waiting so a large output cannot fill the pipe and block the tool.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            Issue.record("\(name) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(errorText)")
            throw CocoaError(.executableLoad)
        }
        return String(decoding: data, as: UTF8.self)
    }
}

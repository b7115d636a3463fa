import Foundation
import PreflightCore
import PreflightTesting
import Testing

/// A self-signed certificate made with the `openssl` command for the test (Debian `openssl`),
/// valid for 127.0.0.1, ::1 and localhost, in a fresh temporary directory.
///
/// Under `CI=true` a missing openssl is a failure; elsewhere the tests that need it are
/// skipped and the run says why (``ExternalTool/canRun(needing:root:)``).
struct TestCertificate {
    /// The certificate's PEM file (it is its own CA).
    let cert: String
    /// The private key's PEM file.
    let key: String
    /// The directory both are in.
    let directory: URL

    /// The openssl executable on `PATH`, if any.
    static var openssl: String? { ExternalTool.path(of: "openssl") }

    /// Makes a fresh certificate and key.
    /// - Throws: when openssl is missing (recorded as an issue) or fails.
    static func make(commonName: String = "127.0.0.1") async throws -> TestCertificate {
        guard let openssl else {
            Issue.record("openssl is not installed: CI must install it (apt-get install openssl)")
            throw CocoaError(.fileNoSuchFile)
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("preflight-edge-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let cert = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert,
            "-days", "1", "-subj", "/CN=\(commonName)", "-addext", "subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost",
        ]
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        // Read and waited for on a thread of its own, never on one of the test process's few
        // concurrency threads.
        let reader = errors.fileHandleForReading
        let errorText = await BlockingWork.run("openssl") { () -> String in
            let text = String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return text
        }
        try #require(process.terminationStatus == 0, "openssl could not make a certificate: \(errorText)")
        return TestCertificate(cert: cert, key: key, directory: directory)
    }

    /// Deletes the files.
    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}

import Crypto
import Foundation
import PreflightEdge
import SwiftASN1
import Testing
import X509

/// The edge's self-signed DTLS certificate: what a browser checks (the SHA-256 fingerprint of
/// its DER), read back by swift-certificates and by the OpenSSL command line.
@Suite struct DTLSIdentityTests {
    @Test func theCertificateIsSelfSignedP256AndItsFingerprintIsItsSHA256() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let identity = try DTLSIdentity(now: now)
        #expect(identity.fingerprint == Array(SHA256.hash(data: identity.certificate)))
        let certificate = try Certificate(derEncoded: identity.certificate)
        #expect(certificate.subject == certificate.issuer)
        #expect(certificate.signatureAlgorithm == .ecdsaWithSHA256)
        #expect(certificate.publicKey.isValidSignature(certificate.signature, for: certificate))
        #expect(certificate.notValidBefore <= now && certificate.notValidAfter > now.addingTimeInterval(29 * 86_400))
        let key = try P256.Signing.PrivateKey(derRepresentation: identity.privateKey)
        #expect(Certificate.PublicKey(key.publicKey) == certificate.publicKey)
        // Another start, another key.
        #expect(try DTLSIdentity(now: now).fingerprint != identity.fingerprint)
    }

    @Test func opensslReadsTheSameFingerprintAndKey() throws {
        guard let openssl = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first(where: FileManager.default.isExecutableFile) else {
            // Under CI=true it must run: openssl is installed there.
            guard ProcessInfo.processInfo.environment["CI"] != "true" else { throw CocoaError(.fileNoSuchFile) }
            print("DTLSIdentityTests: no openssl here; skipped")
            return
        }
        let identity = try DTLSIdentity()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dtls-identity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let certificate = folder.appendingPathComponent("cert.der"), key = folder.appendingPathComponent("key.der")
        try Data(identity.certificate).write(to: certificate)
        try Data(identity.privateKey).write(to: key)
        func run(_ arguments: [String]) throws -> (Int32, String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: openssl)
            process.arguments = arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
        let (status, text) = try run(["x509", "-inform", "DER", "-in", certificate.path, "-noout", "-fingerprint", "-sha256"])
        #expect(status == 0, "\(text)")
        let expected = identity.fingerprint.map { String(format: "%02X", $0) }.joined(separator: ":")
        #expect(text.contains(expected), "\(text)")
        let (keyStatus, keyText) = try run(["pkey", "-inform", "DER", "-in", key.path, "-noout", "-text"])
        #expect(keyStatus == 0 && keyText.contains("P-256"), "\(keyText)")
    }
}

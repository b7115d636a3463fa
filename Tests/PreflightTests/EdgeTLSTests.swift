import Foundation
import Logging
import NIOCore
import Preflight
import PreflightCore
import PreflightEdge
import PreflightNIO
import PreflightTesting
import Testing

/// The edge serving wss with a certificate made by openssl for the test, and the SDK verifying it.
@Suite(.realTime, 
    .serialized,
    // Needs openssl for the certificate: skipped without it outside CI, fails under CI=true.
    .enabled(if: ExternalTool.canRun(needing: "openssl"), "needs openssl on PATH (apt-get install openssl)"))
struct EdgeTLSTests {
    static func configuration(_ certificate: TestCertificate) -> EdgeConfiguration {
        var configuration = LocalEdge.configuration()
        configuration.tls = EdgeTLSConfiguration(certificateChainFile: certificate.cert, privateKeyFile: certificate.key)
        return configuration
    }

    static func outcome(of test: PreflightTest) async -> Result<PreflightReport, PreflightError> {
        await ICEAgentTests.outcome(of: test)
    }

    @Test func aTestOverWSSCompletesWhenTheEdgeCertificateIsTrusted() async throws {
        let certificate = try await TestCertificate.make()
        defer { certificate.remove() }
        try await LocalEdge.withRunning(configuration: Self.configuration(certificate)) { edge in
            let port = try #require(edge.addresses.http.port)
            #expect(edge.signalingURL == "wss://127.0.0.1:\(port)/signaling")
            // By address (the certificate's IP entry) and by name (its DNS entry, with SNI).
            for url in [edge.signalingURL, "wss://localhost:\(port)/signaling"] {
                let test = PreflightTest.run(options: PreflightOptions(
                    accessToken: try await edge.token(), edgeURL: url, duration: .seconds(2),
                    edgeTrustedCertificatesFile: certificate.cert))
                let report = try await Self.outcome(of: test).get()
                #expect(report.statsSamples.count >= 2, "\(url)")
                #expect(report.statsSamples.last?.packetsLost == 0, "\(url)")
            }
        }
    }

    @Test func withoutTrustingTheCertificateTheTestFailsWith53000() async throws {
        let certificate = try await TestCertificate.make()
        defer { certificate.remove() }
        try await LocalEdge.withRunning(configuration: Self.configuration(certificate)) { edge in
            let test = PreflightTest.run(options: PreflightOptions(
                accessToken: try await edge.token(), edgeURL: edge.signalingURL, duration: .seconds(1)))
            guard case .failure(let error) = await Self.outcome(of: test) else {
                Issue.record("a self-signed edge certificate was accepted without trusting it")
                return
            }
            #expect(error.code == .signalingConnectionError)
            #expect(error.message.contains("certificate verification failed"), "\(error.message)")

            // Trusting another CA does not help either.
            let other = try await TestCertificate.make()
            defer { other.remove() }
            let wrongCA = PreflightTest.run(options: PreflightOptions(
                accessToken: try await edge.token(), edgeURL: edge.signalingURL, duration: .seconds(1),
                edgeTrustedCertificatesFile: other.cert))
            guard case .failure(let wrong) = await Self.outcome(of: wrongCA) else {
                Issue.record("a certificate from an untrusted CA was accepted")
                return
            }
            #expect(wrong.code == .signalingConnectionError)
            #expect(wrong.message.contains("certificate verification failed"), "\(wrong.message)")
        }
    }

    #if os(Linux)
    /// Linux routes all of 127.0.0.0/8 to loopback; other systems only 127.0.0.1.
    @Test func aCertificateForAnotherAddressIsRefused() async throws {
        let certificate = try await TestCertificate.make()
        defer { certificate.remove() }
        var configuration = Self.configuration(certificate)
        configuration.host = "127.0.0.2"  // the certificate names 127.0.0.1, ::1 and localhost only
        try await LocalEdge.withRunning(configuration: configuration) { edge in
            let connection = SignalingConnection(url: edge.signalingURL, trustedCertificatesFile: certificate.cert, logger: Logger(label: "test"))
            await connection.run()
            var failure: PreflightError?
            for await event in connection.events { if case .closed(let error) = event { failure = error } }
            #expect(failure?.code == .signalingConnectionError)
            #expect(failure?.message.contains("certificate verification failed") == true, "\(failure?.message ?? "")")
        }
    }
    #endif

    @Test func plainHTTPAndWSToTheTLSPortGetNoAnswer() async throws {
        let certificate = try await TestCertificate.make()
        defer { certificate.remove() }
        try await LocalEdge.withRunning(configuration: Self.configuration(certificate)) { edge in
            let port = try #require(edge.addresses.http.port)
            let reply = try await RawHTTP.get(port: port, path: "/healthz")
            #expect(reply.closedByPeer)
            #expect(!reply.text.contains("HTTP/1."), "\(reply.text)")
            #expect(!reply.text.contains("status"))

            let connection = SignalingConnection(url: "ws://127.0.0.1:\(port)/signaling", logger: Logger(label: "test"))
            await connection.run()
            var failure: PreflightError?
            for await event in connection.events { if case .closed(let error) = event { failure = error } }
            #expect(failure?.code == .signalingConnectionError)
        }
    }

    @Test func unreadableCertificateOrKeyIsACodedError() async throws {
        let certificate = try await TestCertificate.make()
        defer { certificate.remove() }
        let missing = certificate.directory.appendingPathComponent("missing.pem").path
        // A file that cannot be read is 70203; one that holds no certificate is 70005.
        let cases: [(cert: String, key: String, named: String, code: PreflightError.Code)] = [
            (missing, certificate.key, missing, .fileUnreadable),
            (certificate.cert, missing, missing, .fileUnreadable),
            (certificate.directory.path, certificate.key, certificate.directory.path, .fileUnreadable),
            (certificate.key, certificate.key, certificate.key, .invalidArgument),
        ]
        for (cert, key, named, code) in cases {
            var configuration = LocalEdge.configuration()
            configuration.tls = EdgeTLSConfiguration(certificateChainFile: cert, privateKeyFile: key)
            do {
                _ = try await EdgeServer(configuration: configuration, logger: Logger(label: "test"))
                Issue.record("the edge started with \(cert) and \(key)")
            } catch {
                #expect(error.code == code, "\(error)")
                #expect(error.message.hasPrefix("edge TLS:"), "\(error.message)")
                #expect(error.message.contains(named), "\(error.message)")
            }
        }
    }
}

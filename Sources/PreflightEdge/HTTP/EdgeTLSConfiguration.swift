import NIOSSL
import PreflightCore

/// The edge's TLS: with it the edge serves `https://` and `wss://` on its HTTP port (and nothing
/// in plain text there).
///
/// Both files are PEM, as certbot and most CAs hand them out: the certificate chain (leaf first,
/// then intermediates) and its private key. TLS 1.2 is the oldest version accepted.
public struct EdgeTLSConfiguration: Sendable, Hashable {
    /// The PEM file with the certificate chain, leaf first.
    public var certificateChainFile: String
    /// The PEM file with the private key of the leaf certificate.
    public var privateKeyFile: String

    /// Creates a configuration from a certificate chain file and its key file (both PEM).
    public init(certificateChainFile: String, privateKeyFile: String) {
        self.certificateChainFile = certificateChainFile
        self.privateKeyFile = privateKeyFile
    }

    /// Reads both files and makes the server context.
    /// - Throws: ``PreflightError`` `.invalidArgument` naming the file that cannot be read, holds
    ///   no certificate, or whose key does not fit the certificate.
    func makeContext() throws(PreflightError) -> NIOSSLContext {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificateChainFile)
        } catch {
            throw PreflightError(
                code: .invalidArgument, message: "edge TLS: cannot read a PEM certificate chain from \(certificateChainFile)",
                underlying: error)
        }
        guard !chain.isEmpty else {
            throw PreflightError(code: .invalidArgument, message: "edge TLS: no certificate in \(certificateChainFile)")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: privateKeyFile, format: .pem)
        } catch {
            throw PreflightError(
                code: .invalidArgument, message: "edge TLS: cannot read a PEM private key from \(privateKeyFile)", underlying: error)
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw PreflightError(
                code: .invalidArgument,
                message: "edge TLS: cannot use the certificate in \(certificateChainFile) with the key in \(privateKeyFile)",
                underlying: error)
        }
    }
}

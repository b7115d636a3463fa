import Foundation
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
    /// - Throws: ``PreflightError`` `.fileUnreadable` naming a file that cannot be read, and
    ///   `.invalidArgument` naming a file that holds no PEM certificate or key, or a key that does
    ///   not fit the certificate (docs/errors.md).
    func makeContext() throws(PreflightError) -> NIOSSLContext {
        let chainBytes = try Self.contents(of: certificateChainFile, holding: "certificate chain")
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(chainBytes)
        } catch {
            throw PreflightError(
                code: .invalidArgument, message: "edge TLS: cannot read a PEM certificate chain from \(certificateChainFile)",
                underlying: error)
        }
        guard !chain.isEmpty else {
            throw PreflightError(code: .invalidArgument, message: "edge TLS: no certificate in \(certificateChainFile)")
        }
        let keyBytes = try Self.contents(of: privateKeyFile, holding: "private key")
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(bytes: keyBytes, format: .pem)
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

    /// The bytes of `file`.
    /// - Throws: ``PreflightError`` `.fileUnreadable` when it is missing, unreadable or not a file.
    private static func contents(of file: String, holding what: String) throws(PreflightError) -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory.boolValue,
            let data = FileManager.default.contents(atPath: file)
        else {
            throw PreflightError(code: .fileUnreadable, message: "edge TLS: cannot read the \(what) file \(file)")
        }
        return Array(data)
    }
}

import Crypto
import Foundation
import PreflightCore
import SwiftASN1
import X509

/// The edge's DTLS certificate for browsers' WebRTC: self-signed, as every WebRTC endpoint's is
/// (RFC 8827 §6.5): a browser checks it against the `a=fingerprint` of the edge's SDP answer
/// (``BrowserAnswer``), which it received over the page's authenticated HTTPS, never against an
/// authority. ECDSA P-256 with SHA-256, as browsers make their own; valid from a day before it is
/// made (clocks disagree) for 30 days; made once per edge start, the private key never written
/// anywhere.
public struct DTLSIdentity: Sendable {
    /// The certificate, DER.
    public let certificate: [UInt8]
    /// The private key, PKCS#8 DER, for the DTLS server.
    public let privateKey: [UInt8]
    /// SHA-256 of ``certificate``: the answer's `a=fingerprint:sha-256`.
    public let fingerprint: [UInt8]

    /// A fresh key and certificate.
    /// - Throws: ``PreflightError`` 70005 if the certificate cannot be built (it can for any
    ///   `commonName` of 1–64 characters).
    public init(commonName: String = "preflight-edge", now: Date = Date()) throws(PreflightError) {
        let key = P256.Signing.PrivateKey()
        do {
            let name = try DistinguishedName { CommonName(String(commonName.prefix(64))) }
            let certificate = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
                notValidBefore: now.addingTimeInterval(-86_400), notValidAfter: now.addingTimeInterval(30 * 86_400),
                issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256, extensions: Certificate.Extensions {},
                issuerPrivateKey: .init(key))
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            self.certificate = serializer.serializedBytes
        } catch {
            throw PreflightError(code: .invalidArgument, message: "DTLS: the edge's certificate could not be made", underlying: error)
        }
        privateKey = Array(key.derRepresentation)
        fingerprint = Array(SHA256.hash(data: certificate))
    }
}

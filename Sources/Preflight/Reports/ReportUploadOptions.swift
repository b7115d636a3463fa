import Foundation
import Logging
internal import PreflightCore
internal import PreflightNIO

/// What an upload needs from a feature's options.
struct ReportUploadOptions: Sendable {
    var enabled: Bool
    var edgeURL: String
    var accessToken: String
    var trustedCertificatesFile: String?
    var timeout: Duration

    init(enabled: Bool, edgeURL: String, accessToken: String, trustedCertificatesFile: String?, signalingTimeout: Duration) {
        self.enabled = enabled
        self.edgeURL = edgeURL
        self.accessToken = accessToken
        self.trustedCertificatesFile = trustedCertificatesFile
        timeout = min(signalingTimeout, .seconds(5))
    }

    init(_ options: PreflightOptions) {
        self.init(
            enabled: options.uploadsReport, edgeURL: options.edgeURL, accessToken: options.accessToken,
            trustedCertificatesFile: options.edgeTrustedCertificatesFile, signalingTimeout: options.signalingTimeout)
    }
}

/// Uploads a finished feature's report to its edge (`POST /v1/reports`), unless turned off or
/// pointless: a report whose error says the edge could not be reached or refused the token is
/// not sent (it would fail the same way). A failed upload is logged, never thrown: the test's
/// outcome stands.
/// - Returns: the sid the edge stored it under, or `nil`.
@discardableResult
func uploadReport(_ report: some Encodable, kind: ReportKind, options: ReportUploadOptions, errorCode: Int? = nil, logger: Logger) async -> String? {
    guard options.enabled else { return nil }
    let unreachable = [PreflightError.Code.signalingConnectionError.rawValue, PreflightError.Code.initFailed.rawValue]
    if let code = errorCode, unreachable.contains(code) || (20100...20199).contains(code) {
        return nil
    }
    guard let body = try? JSONEncoder().encode(report) else { return nil }
    do {
        let receipt = try await ReportUploader.upload(
            body, kind: kind, edge: options.edgeURL, accessToken: options.accessToken,
            trustedCertificatesFile: options.trustedCertificatesFile, timeout: options.timeout)
        logger.debug("report uploaded", metadata: ["sid": "\(receipt.sid)", "kind": "\(kind.rawValue)"])
        return receipt.sid
    } catch {
        logger.warning("report not uploaded", metadata: ["kind": "\(kind.rawValue)", "code": "\(error.code.rawValue)", "error": "\(error.message)"])
        return nil
    }
}

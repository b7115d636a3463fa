import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import PreflightCore

/// The client of an edge's init endpoint (`GET /v1/init`, docs/protocol.md), the first step of a
/// connectivity check as 100ms's init API is: the access token goes as a Bearer credential, and
/// the answer names the edge, its signaling URL and the ICE servers to use.
public enum InitClient {
    /// Where the init endpoint of an edge is given by its signaling URL (`ws[s]://host:port/…` becomes
    /// `http[s]://host:port/v1/init`) or by its HTTP base (`http[s]://host:port[/v1/init]`).
    /// - Throws: 70601 for any other text.
    static func initURL(edge: String, failure: PreflightError.Code = .initFailed) throws(PreflightError) -> (url: Target, secure: Bool) {
        let lowered = edge.lowercased()
        let asWebSocket: String
        if lowered.hasPrefix("https://") {
            asWebSocket = "wss://" + edge.dropFirst(8)
        } else if lowered.hasPrefix("http://") {
            asWebSocket = "ws://" + edge.dropFirst(7)
        } else {
            asWebSocket = edge
        }
        let parsed: SignalingURL
        do {
            parsed = try SignalingURL(asWebSocket)
        } catch {
            throw PreflightError(code: failure, message: "bad edge URL \(UntrustedText.quoted(edge)); give http[s]:// or ws[s]://host:port")
        }
        return (Target(host: parsed.host, port: parsed.port, hostHeader: parsed.hostHeader, isAddressLiteral: parsed.isAddressLiteral), parsed.isSecure)
    }

    /// The parts of an init URL the request needs.
    struct Target: Sendable, Hashable {
        var host: String
        var port: Int
        var hostHeader: String
        /// Whether ``host`` is an address (no SNI).
        var isAddressLiteral: Bool
    }

    /// Fetches the init answer.
    /// - Parameters:
    ///   - edge: the edge (see ``initURL(edge:)``).
    ///   - accessToken: the JWT, sent as `Authorization: Bearer`.
    ///   - region: a region hint, sent as the `region` query parameter.
    ///   - trustedCertificatesFile: CA certificates to trust besides the system's, for `https`.
    ///   - timeout: for the whole exchange.
    /// - Throws: the token's code (201xx) when the endpoint refused it (its 401 body), 70601 when
    ///   it could not be reached, timed out, or answered something else.
    public static func fetch(
        edge: String, accessToken: String, region: String? = nil, trustedCertificatesFile: String? = nil, timeout: Duration
    ) async throws(PreflightError) -> InitAnswer {
        var path = "/v1/init"
        if let region, !region.isEmpty {
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_."))
            path += "?region=" + (region.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        }
        let exchange: EdgeHTTPClient.Reply
        do {
            exchange = try await EdgeHTTPClient.send(
                edge: edge, method: "GET", path: path, authorization: "Bearer \(accessToken)",
                trustedCertificatesFile: trustedCertificatesFile, timeout: timeout, maximumLength: InitAnswer.maximumLength,
                failure: .initFailed)
        } catch {
            throw PreflightError(code: error.code, message: "init: \(error.message)", underlying: error.underlying)
        }
        return try InitAnswer(status: exchange.status, body: exchange.body)
    }
}

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
    static func initURL(edge: String) throws(PreflightError) -> (url: Target, secure: Bool) {
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
            throw PreflightError(code: .initFailed, message: "init: bad edge URL \(UntrustedText.quoted(edge)); give http[s]:// or ws[s]://host:port")
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
        let (target, secure) = try initURL(edge: edge)
        var path = "/v1/init"
        if let region, !region.isEmpty {
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_."))
            path += "?region=" + (region.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        }
        let tls = try secure ? makeTLS(trustedCertificatesFile) : nil
        let request = path
        let exchange: (status: UInt, body: [UInt8])
        do {
            exchange = try await withThrowingTaskGroup(of: (status: UInt, body: [UInt8])?.self) { group in
                group.addTask { try await get(target, path: request, token: accessToken, tls: tls) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let result = first else {
                    throw PreflightError(code: .initFailed, message: "init: no answer from \(target.hostHeader) within \(timeout)")
                }
                return result
            }
        } catch let error as PreflightError {
            throw error
        } catch {
            throw PreflightError(code: .initFailed, message: "init: cannot reach \(target.hostHeader): \(error)", underlying: error)
        }
        return try InitAnswer(status: exchange.status, body: exchange.body)
    }

    static func makeTLS(_ trustedCertificatesFile: String?) throws(PreflightError) -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .fullVerification
        do {
            if let file = trustedCertificatesFile {
                configuration.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(file))]
            }
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw PreflightError(code: .initFailed, message: "init: cannot set up TLS", underlying: error)
        }
    }

    private static func get(_ target: Target, path: String, token: String, tls: NIOSSLContext?) async throws -> (status: UInt, body: [UInt8]) {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .connect(host: target.host, port: target.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        let handler = try NIOSSLClientHandler(context: tls, serverHostname: target.isAddressLiteral ? nil : target.host)
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path)
            head.headers.add(name: "Host", value: target.hostHeader)
            head.headers.add(name: "Authorization", value: "Bearer \(token)")
            head.headers.add(name: "Accept", value: "application/json")
            head.headers.add(name: "Connection", value: "close")
            try await outbound.write(.head(head))
            try await outbound.write(.end(nil))
            var status: UInt = 0
            var body: [UInt8] = []
            for try await part in inbound {
                switch part {
                case .head(let response):
                    status = response.status.code
                case .body(let buffer):
                    guard body.count + buffer.readableBytes <= InitAnswer.maximumLength else {
                        throw PreflightError(code: .initFailed, message: "init: the answer exceeds \(InitAnswer.maximumLength) bytes")
                    }
                    body += buffer.readableBytesView
                case .end:
                    return (status, body)
                }
            }
            throw PreflightError(code: .initFailed, message: "init: the connection closed before the answer ended")
        }
    }
}

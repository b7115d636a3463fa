import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import PreflightCore

/// One HTTP/1.1 exchange with an edge (its init endpoint, report upload, REST API): a new
/// connection, TLS with full verification for `https`/`wss`, a body cap and a deadline.
public enum EdgeHTTPClient {
    /// An edge's answer.
    public struct Reply: Sendable, Hashable {
        /// The status code.
        public var status: UInt
        /// The body.
        public var body: [UInt8]
    }

    /// Sends one request.
    /// - Parameters:
    ///   - edge: the edge's signaling URL (`ws[s]://host:port/…`) or HTTP base (`http[s]://host:port`).
    ///   - method: `GET` or `POST`.
    ///   - path: the request target, from `/`.
    ///   - authorization: the `Authorization` value.
    ///   - body: a JSON body for `POST`.
    ///   - maximumLength: the longest answer read.
    ///   - failure: the code of every failure (nothing listening, timeout, an answer over the cap).
    public static func send(
        edge: String, method: String, path: String, authorization: String?, body: [UInt8]? = nil,
        trustedCertificatesFile: String? = nil, timeout: Duration, maximumLength: Int, failure: PreflightError.Code
    ) async throws(PreflightError) -> Reply {
        let (target, secure) = try InitClient.initURL(edge: edge, failure: failure)
        let tls = try secure ? makeTLS(trustedCertificatesFile, failure: failure) : nil
        let head = RequestHead(method: method == "POST" ? .POST : .GET, path: path, authorization: authorization, body: body)
        do {
            return try await withThrowingTaskGroup(of: Reply?.self) { group in
                group.addTask {
                    try await exchange(target, head: head, tls: tls, connectTimeout: min(timeout, .seconds(10)), maximumLength: maximumLength, failure: failure)
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let reply = first else {
                    throw PreflightError(code: failure, message: "no answer from \(target.hostHeader) within \(timeout)")
                }
                return reply
            }
        } catch let error as PreflightError {
            throw error
        } catch {
            throw PreflightError(code: failure, message: "cannot reach \(target.hostHeader): \(error)", underlying: error)
        }
    }

    struct RequestHead: Sendable {
        var method: HTTPMethod
        var path: String
        var authorization: String?
        var body: [UInt8]?
    }

    static func makeTLS(_ trustedCertificatesFile: String?, failure: PreflightError.Code) throws(PreflightError) -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .fullVerification
        do {
            if let file = trustedCertificatesFile {
                configuration.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(file))]
            }
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw PreflightError(code: failure, message: "cannot set up TLS", underlying: error)
        }
    }

    private static func exchange(
        _ target: InitClient.Target, head request: RequestHead, tls: NIOSSLContext?, connectTimeout: Duration, maximumLength: Int,
        failure: PreflightError.Code
    ) async throws -> Reply {
        // The connect does not stop on cancellation: its own timeout must not outlast the caller's.
        let milliseconds = connectTimeout.components.seconds * 1000 + connectTimeout.components.attoseconds / 1_000_000_000_000_000
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.milliseconds(max(1, milliseconds)))
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
            var head = HTTPRequestHead(version: .http1_1, method: request.method, uri: request.path)
            head.headers.add(name: "Host", value: target.hostHeader)
            if let authorization = request.authorization { head.headers.add(name: "Authorization", value: authorization) }
            head.headers.add(name: "Accept", value: "application/json")
            head.headers.add(name: "Connection", value: "close")
            if let body = request.body {
                head.headers.add(name: "Content-Type", value: "application/json")
                head.headers.add(name: "Content-Length", value: String(body.count))
            }
            // The whole request in one write: written part by part, a small one could be answered
            // (and the connection closed, `Connection: close`) before its last part went out,
            // whose write would then fail with the answer waiting unread.
            var parts: [HTTPClientRequestPart] = [.head(head)]
            if let body = request.body { parts.append(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
            parts.append(.end(nil))
            try await outbound.write(contentsOf: parts)
            var status: UInt = 0
            var body: [UInt8] = []
            for try await part in inbound {
                switch part {
                case .head(let response):
                    status = response.status.code
                case .body(let buffer):
                    guard body.count + buffer.readableBytes <= maximumLength else {
                        throw PreflightError(code: failure, message: "the answer exceeds \(maximumLength) bytes")
                    }
                    body += buffer.readableBytesView
                case .end:
                    return Reply(status: status, body: body)
                }
            }
            throw PreflightError(code: failure, message: "the connection closed before the answer ended")
        }
    }
}

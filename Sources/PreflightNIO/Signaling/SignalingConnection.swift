import Logging
import NIOCore
import NIOSSL
import PreflightCore
import Synchronization
import NIOWebSocket
import WSClient

/// The client end of the signaling WebSocket (docs/protocol.md): ``run()`` connects and pumps,
/// ``events`` delivers what happens, ``send(_:)`` writes a message.
public final class SignalingConnection: Sendable {
    /// What the connection reports.
    public enum Event: Sendable {
        /// The WebSocket is open.
        case connected
        /// A message from the edge.
        case message(SignalingMessage)
        /// The connection ended: `nil` after a close this side asked for, else why.
        case closed(PreflightError?)
    }

    /// The connection's events, in order; finishes after ``Event/closed(_:)``.
    public let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let url: String
    private let trustedCertificatesFile: String?
    private let logger: Logger
    private let outbound = Mutex<WebSocketOutboundWriter?>(nil)
    private let closing = Mutex(false)

    /// Creates a connection to `url` (`ws://` or `wss://`); nothing happens until ``run()``.
    ///
    /// Over `wss://` the edge's certificate is fully verified: its chain against the system's
    /// trust roots (and those in `trustedCertificatesFile`), and its name against the URL's host
    /// (a DNS name; for an address literal, an IP address entry).
    /// - Parameters:
    ///   - url: the signaling URL.
    ///   - trustedCertificatesFile: a PEM file of CA certificates to trust besides the system's;
    ///     `nil` by default.
    ///   - logger: where the connection logs.
    public init(url: String, trustedCertificatesFile: String? = nil, logger: Logger) {
        self.url = url
        self.trustedCertificatesFile = trustedCertificatesFile
        self.logger = logger
        (events, continuation) = AsyncStream<Event>.makeStream()
    }

    /// Connects and delivers messages until the connection ends or the task is cancelled. Always
    /// ends by yielding ``Event/closed(_:)``.
    public func run() async {
        let client: ClientConnection<SignalingClientChannel>
        do throws(PreflightError) {
            client = try makeClient()
        } catch {
            continuation.yield(.closed(error))
            continuation.finish()
            return
        }
        var failure: PreflightError?
        do {
            let close = try await client.run()
            if !closing.withLock({ $0 }) {
                failure = PreflightError(
                    code: .signalingDisconnected,
                    message: "signaling: the edge closed the connection\(close.map { " (\($0.closeCode))" } ?? "")")
            }
        } catch let error as PreflightError {
            failure = error
        } catch {
            let connected = outbound.withLock { $0 != nil }
            failure = PreflightError(
                code: connected ? .signalingDisconnected : .signalingConnectionError,
                message: connected
                    ? "signaling: the connection to \(url) was lost"
                    : "signaling: cannot connect to \(url)\(Self.tlsExplanation(error))",
                underlying: error)
        }
        if Task.isCancelled, failure?.code != .malformed { failure = nil }
        outbound.withLock { $0 = nil }
        continuation.yield(.closed(failure))
        continuation.finish()
    }

    private func makeClient() throws(PreflightError) -> ClientConnection<SignalingClientChannel> {
        let target = try SignalingURL(url)
        var tls: NIOSSLContext?
        if target.isSecure {
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.certificateVerification = .fullVerification
            if let file = trustedCertificatesFile {
                do {
                    configuration.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(file))]
                } catch {
                    throw PreflightError(
                        code: .signalingConnectionError, message: "signaling: cannot read the trusted certificates in \(file)",
                        underlying: error)
                }
            }
            do {
                tls = try NIOSSLContext(configuration: configuration)
            } catch {
                throw PreflightError(code: .signalingConnectionError, message: "signaling: cannot set up TLS", underlying: error)
            }
        }
        let channel = SignalingClientChannel(
            url: target, tls: tls, maximumFrameSize: SignalingMessage.maximumTextLength, closeTimeout: .seconds(1)
        ) { [self] inbound, outbound, _ in
            self.outbound.withLock { $0 = outbound }
            continuation.yield(.connected)
            var iterator = inbound.makeAsyncIterator()
            while let message = try await iterator.nextMessage(maxSize: SignalingMessage.maximumTextLength) {
                guard case .text(let text) = message else {
                    throw PreflightError(code: .malformed, message: "signaling: the edge sent a binary frame")
                }
                continuation.yield(.message(try SignalingMessage(jsonText: text)))
            }
        }
        return ClientConnection(channel, address: .hostname(target.host, port: target.port), logger: logger)
    }

    /// Why a TLS connection failed, for the message: `""` when the error is not about TLS.
    static func tlsExplanation(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("failedToValidateHostname") {
            return ": TLS certificate verification failed (the edge's certificate is not trusted, has expired, "
                + "or is not for this host): \(text)"
        }
        if error is NIOSSLError || error is NIOSSLExtraError {
            return ": TLS handshake failed: \(text)"
        }
        return ""
    }

    /// Sends a message.
    /// - Throws: ``PreflightError`` `.signalingDisconnected` when the connection is not open.
    public func send(_ message: SignalingMessage) async throws(PreflightError) {
        guard let writer = outbound.withLock({ $0 }) else {
            throw PreflightError(code: .signalingDisconnected, message: "signaling: not connected")
        }
        do {
            try await writer.write(.text(message.jsonText()))
        } catch {
            throw PreflightError(code: .signalingDisconnected, message: "signaling: sending \(message.type) failed", underlying: error)
        }
    }

    /// Closes the connection normally.
    public func close() async {
        closing.withLock { $0 = true }
        let writer = outbound.withLock { $0 }
        try? await writer?.close(.normalClosure, reason: nil)
    }
}

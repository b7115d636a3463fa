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
    private let writeTimeout: Duration
    private let outbound = Mutex<WebSocketOutboundWriter?>(nil)
    /// The connection's channel (the WebSocket once upgraded): closed when a write cannot complete
    /// within ``writeTimeout``, or by ``close()`` before the edge answered the upgrade.
    private let channel = Mutex<(any Channel)?>(nil)
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
    ///   - writeTimeout: how long ``send(_:)`` may wait for the connection to take a message
    ///     (10 s by default). A connection that takes nothing for that long (the edge stopped
    ///     reading, the path stalled) is closed as lost.
    ///   - logger: where the connection logs.
    public init(url: String, trustedCertificatesFile: String? = nil, writeTimeout: Duration = .seconds(10), logger: Logger) {
        self.url = url
        self.trustedCertificatesFile = trustedCertificatesFile
        self.writeTimeout = writeTimeout
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
        channel.withLock { $0 = nil }
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
            url: target, tls: tls, maximumFrameSize: SignalingMessage.maximumTextLength, closeTimeout: .seconds(1),
            upgraded: { [self] channel in self.channel.withLock { $0 = channel } }
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

    /// Sends a message. A write the connection does not take within the write timeout (the
    /// WebSocket's writer waits while the socket cannot take more) closes the connection: its
    /// ``run()`` then ends with ``Event/closed(_:)`` as for any lost connection, and a run that
    /// was waiting on the write goes on instead of hanging.
    /// - Throws: ``PreflightError`` `.signalingDisconnected` when the connection is not open, the
    ///   write failed, or it did not complete within the write timeout.
    public func send(_ message: SignalingMessage) async throws(PreflightError) {
        guard let writer = outbound.withLock({ $0 }) else {
            throw PreflightError(code: .signalingDisconnected, message: "signaling: not connected")
        }
        let text = message.jsonText()
        let timeout = writeTimeout
        let outcome: WriteOutcome = await withTaskGroup(of: WriteOutcome.self) { group in
            group.addTask {
                do {
                    try await writer.write(.text(text))
                    return .written
                } catch {
                    return .failed(error)
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return .timedOut
            }
            let first = await group.next() ?? .timedOut
            if case .timedOut = first {
                // Closing the channel fails the write still waiting, which ends its task.
                channel.withLock { $0 }?.close(promise: nil)
            }
            group.cancelAll()
            return first
        }
        switch outcome {
        case .written:
            return
        case .failed(let error):
            throw PreflightError(code: .signalingDisconnected, message: "signaling: sending \(message.type) failed", underlying: error)
        case .timedOut:
            logger.warning("signaling: sending \(message.type) did not complete within \(timeout); closing the connection")
            throw PreflightError(
                code: .signalingDisconnected,
                message: "signaling: sending \(message.type) did not complete within \(timeout): the connection is closed as lost")
        }
    }

    private enum WriteOutcome: Sendable {
        case written, timedOut
        case failed(any Error)
    }

    /// The local address of the connection's socket once it is open: the network it leaves by.
    public var localAddress: SocketAddress? { channel.withLock { $0 }?.localAddress }

    /// Drops the connection as lost (its network went away): ``run()`` ends with
    /// ``Event/closed(_:)`` and an error, as for any lost connection, so a client that resumes
    /// its session does so on a new connection.
    public func drop() {
        channel.withLock { $0 }?.close(promise: nil)
    }

    /// Closes the connection normally; one the edge has not upgraded yet is closed at once (an
    /// edge that hangs would otherwise hold ``run()`` until the TCP connection died).
    public func close() async {
        closing.withLock { $0 = true }
        if let writer = outbound.withLock({ $0 }) {
            try? await writer.close(.normalClosure, reason: nil)
        } else {
            try? await channel.withLock({ $0 })?.close()
        }
    }
}

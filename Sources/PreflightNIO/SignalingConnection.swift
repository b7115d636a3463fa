import Logging
import NIOCore
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
    private let logger: Logger
    private let outbound = Mutex<WebSocketOutboundWriter?>(nil)
    private let closing = Mutex(false)

    /// Creates a connection to `url` (`ws://` or `wss://`); nothing happens until ``run()``.
    public init(url: String, logger: Logger) {
        self.url = url
        self.logger = logger
        (events, continuation) = AsyncStream<Event>.makeStream()
    }

    /// Connects and delivers messages until the connection ends or the task is cancelled. Always
    /// ends by yielding ``Event/closed(_:)``.
    public func run() async {
        let client = WebSocketClient(
            url: url, configuration: .init(maxFrameSize: SignalingMessage.maximumTextLength, closeTimeout: .seconds(1)), logger: logger
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
                    ? "signaling: the connection to \(url) was lost" : "signaling: cannot connect to \(url)",
                underlying: error)
        }
        if Task.isCancelled, failure?.code != .malformed { failure = nil }
        outbound.withLock { $0 = nil }
        continuation.yield(.closed(failure))
        continuation.finish()
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

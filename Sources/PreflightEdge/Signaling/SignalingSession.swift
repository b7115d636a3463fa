import Foundation
import HummingbirdWebSocket
import NIOWebSocket
import Logging
import PreflightCore
import Synchronization

/// One signaling connection on the edge: hello → welcome, invite → ringing → answer, then the call
/// until either side hangs up (docs/protocol.md). A session whose connection is lost in a call
/// without a hangup parks for the resume window; a new connection whose first message is `resume` with its
/// id and token continues it (``SessionResumptions``), its reader feeding the session's queue.
///
/// Its events (client messages, timers, the application's end) go through one bounded stream to
/// one loop, so the session's state has a single owner. A malformed or unexpected message ends this
/// session with an `error` (70002) and leaves every other session untouched. When the loop ends
/// the reader is cancelled and the handler returns, which closes the connection: nothing the
/// client sends afterwards is read. A client that sends faster than the loop consumes is read
/// no faster than that: at most ``inboundBuffer`` of its events wait in the queue, the rest in
/// TCP's buffers.
struct SignalingSession {
    let edge: EdgeServer
    let mediaPort: Int
    let logger: Logger

    enum Event: Sendable {
        case message(SignalingMessage)
        case malformed(PreflightError)
        /// The connection ended; `protocolError` when the client broke the WebSocket protocol
        /// (that session ends: it is not resumed).
        case closed(protocolError: Bool)
        /// The session's timer number `generation` expired (``SessionLoop``).
        case timer(generation: Int)
        /// Something the other party of a call did, or a call ringing here (``CallRouter``).
        case call(CallRouter.Notice)
        /// Something the media service did for one of the session's media sessions.
        case media(SessionMediaNotice)
        /// A new connection proved this session's resume token `token` while this one still
        /// holds it (``SessionResumptions``): the session parks at once for it (unless it parked
        /// and was resumed meanwhile: its token is then another).
        case takenOver(token: String)
        /// The edge drains (``EdgeServer/drain()``); `limitReached` once its limit passed.
        case draining(limitReached: Bool)

        /// Whether the client sent it (it counts against ``SignalingSession/inboundBuffer``).
        var isFromClient: Bool {
            switch self {
            case .message, .malformed, .closed: true
            case .timer, .call, .media, .takenOver, .draining: false
            }
        }
    }

    /// Client events the loop may be behind the reader; beyond them the reader waits for the
    /// loop, so a burst of messages (a client's 11 call messages at once) is delayed, not refused.
    static let inboundBuffer = 8

    /// How long the edge keeps reading, and discarding, after it sent its close frame, waiting for
    /// the client's: a closed connection with unread data is reset, which would destroy the
    /// `error` and close frame before the client reads them.
    static let closeDrain: Duration = .seconds(2)

    /// Messages read and discarded after the session ended before the edge stops waiting for the
    /// client's close frame: a client that keeps sending is not waiting for anything.
    static let closeDrainMessages = 64

    /// How a connection's part in a session ended.
    enum Ending: Sendable {
        /// The session ended on this connection: close it (the normal end).
        case here
        /// This connection was lost: the session ended after its resume window, or on the
        /// connection that resumed it (which closes itself). Nothing to close here.
        case connectionLost
        /// This connection resumed another session: it serves that one until it ends.
        case resumedOther(ended: AsyncStream<Never>)
    }

    /// Serves the connection until the client leaves or the session ends, then closes it.
    ///
    /// - Throws: the WebSocket library's error when the client broke the WebSocket protocol
    ///   (text that is not UTF-8, a message over the size limit): rethrown, the library closes
    ///   the connection with the matching code (1007, 1009).
    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let inbox = SessionInbox()
        let reader = ReaderState(target: inbox)
        let key = ObjectIdentifier(inbox)
        edge.liveSessions.withLock { $0[key] = inbox }
        defer { edge.liveSessions.withLock { _ = $0.removeValue(forKey: key) } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await read(inbound, state: reader)
            }
            var loop = SessionLoop(session: self, inbox: inbox, outbound: outbound, reader: reader)
            let ending = await loop.run()
            inbox.finish()
            switch ending {
            case .connectionLost:
                // This connection was lost long ago; the other one closed itself.
                group.cancelAll()
                return
            case .resumedOther(let ended):
                // Serve the resumed session until it ends, or until this connection is lost
                // (the reader ends: the session is told and parks again).
                group.addTask { for await _ in ended {} }
                try await group.next()
            case .here:
                break
            }
            // From now on the reader discards what arrives instead of parsing it.
            reader.sessionEnded.store(true, ordering: .releasing)
            if reader.protocolError.load(ordering: .acquiring) {
                // The library closes with the error's code once it is rethrown.
                try await group.next()
                return
            }
            try? await outbound.close(.normalClosure, reason: nil)
            // Wait for the client's close frame (the reader ends), at most `closeDrain`; then
            // stop reading, which lets the handler return and the connection close.
            group.addTask { try? await Task.sleep(for: Self.closeDrain) }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Random hex of `bytes` bytes from the system's generator.
    static func randomHex(bytes: Int) -> String {
        var random = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in
            let byte = UInt8.random(in: 0...255, using: &random)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }

    /// What the session's machine works with: this edge's router, media service, admissions,
    /// call events and store, and the session's own queue for its notices.
    func environment(notices: SessionInbox) -> SignalingSessionMachine.Environment {
        let edge = edge
        let mediaPort = mediaPort
        let storeWriter = edge.storeWriter
        return SignalingSessionMachine.Environment(
            configuration: edge.configuration, calls: edge.calls, media: edge.media, admissions: edge.admissions,
            callEvents: edge.callEvents, storeEvents: { storeWriter.enqueue($0) }, notices: notices,
            hostCandidate: ICECandidate(
                foundation: "1", priority: ICECandidate.priority(typePreference: 126, localPreference: 65535, component: 1),
                address: edge.advertisedAddress, port: UInt16(clamping: edge.configuration.advertisedMediaPort ?? mediaPort), type: .host),
            iceServers: { edge.iceServers(for: $0, mediaPort: mediaPort) },
            randomHex: { Self.randomHex(bytes: $0) },
            isDraining: { edge.draining.load(ordering: .relaxed) },
            unixMilliseconds: { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) },
            logger: logger)
    }
}

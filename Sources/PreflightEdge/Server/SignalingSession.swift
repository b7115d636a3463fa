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
        /// The timer of the phase with this number expired (``SessionLoop/phaseNumber``).
        case timeout(phaseNumber: Int)
        case applicationFinished(reason: String, code: PreflightError.Code?)
        /// Something the other party of a call did, or a call ringing here (``CallRouter``).
        case call(CallRouter.Notice)
        /// The caller's ring timer for this call expired.
        case ringTimeout(callSid: String)
        /// An ended call's media session may go now.
        case mediaLingered(ufrag: String)
        /// A probe's uplink arrival records are due (every 100 ms).
        case probeFlush(callSid: String)
        /// A new connection proved this session's resume token `token` while this one still
        /// holds it (``SessionResumptions``): the session parks at once for it (unless it parked
        /// and was resumed meanwhile: its token is then another).
        case takenOver(token: String)

        /// Whether the client sent it (it counts against ``SignalingSession/inboundBuffer``).
        var isFromClient: Bool {
            switch self {
            case .message, .malformed, .closed: true
            case .timeout, .applicationFinished, .call, .ringTimeout, .mediaLingered, .probeFlush, .takenOver: false
            }
        }
    }

    enum Phase {
        case awaitingHello
        /// Signed in with these claims, in no call: may invite, register, accept.
        case ready(AccessTokenClaims)
        case inCall(ActiveCall)
    }

    /// The session's call.
    struct ActiveCall {
        let callSid: String
        /// The media session's local ufrag, once it is open.
        var ufrag: String?
        /// The test application, or `nil` for a call between clients (``CallRouter``).
        let application: TestApplication?
        let role: CallRole
        /// For a caller between clients: the callee answered.
        var answered = false
        /// The client's ICE ufrag and the codec chosen (for a caller's media opened late).
        let remoteUfrag: String
        let format: AudioPayloadFormat
        /// The client's SRTP key, when it encrypts.
        let srtp: SRTPKeyingMaterial?
        let claims: AccessTokenClaims
        /// A last-mile probe rather than a call (its application is the echo, for its pings).
        var isProbe = false
        /// A connectivity check's subscribe leg (``ufrag`` is then its publish leg).
        var subscribeUfrag: String?
    }

    enum Disposition {
        case proceed
        case end
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

    static func hex(_ random: inout SystemRandomNumberGenerator, bytes: Int) -> String {
        (0..<bytes).map { _ in
            let byte = UInt8.random(in: 0...255, using: &random)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }

}

extension SignalingSession.Phase {
    var callSid: String? {
        if case .inCall(let call) = self { return call.callSid }
        return nil
    }

    /// The claims of a signed-in session.
    var claims: AccessTokenClaims? {
        switch self {
        case .awaitingHello: nil
        case .ready(let claims): claims
        case .inCall(let call): call.claims
        }
    }

    var awaited: String {
        switch self {
        case .awaitingHello: "hello"
        case .ready: "invite"
        case .inCall: "hangup"
        }
    }
}

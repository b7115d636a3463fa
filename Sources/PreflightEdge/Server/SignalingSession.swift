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
/// client sends afterwards is read, and a client that sends faster than the loop consumes (more
/// than ``inboundBuffer`` events ahead) has its session ended.
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
        /// The timer of the phase with this number expired (``Phase`` changes count up from 0).
        case timeout(phaseNumber: Int)
        case applicationFinished(reason: String, code: PreflightError.Code?)
    }

    enum Phase {
        case awaitingHello
        case awaitingInvite(AccessTokenClaims)
        case inCall(callSid: String, ufrag: String)
    }

    private enum Disposition {
        case proceed
        case end
    }

    /// Events buffered between the reader and the loop. The protocol has at most three client
    /// messages in a session (hello, invite, hangup), so a client this far ahead is flooding.
    static let inboundBuffer = 4

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
        let (events, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingOldest(Self.inboundBuffer))
        let reader = ReaderState(target: continuation)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await read(inbound, state: reader)
            }
            let ending = await handleEventsUntilTheSessionEnds(
                events, postingTo: continuation, replyingOn: outbound, reader: reader)
            continuation.finish()
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

    /// The session's one owner: takes the events in order, moves the session through its phases
    /// (hello, invite, call), answers on `outbound`, and posts its own events (a phase's timeout,
    /// the record-playback application's end) to `continuation`. Returns when the session ends,
    /// after releasing its media session and admission.
    private func handleEventsUntilTheSessionEnds(
        _ events: AsyncStream<Event>, postingTo continuation: AsyncStream<Event>.Continuation,
        replyingOn firstOutbound: WebSocketOutboundWriter, reader: ReaderState
    ) async -> Ending {
        let configuration = edge.configuration
        var phase = Phase.awaitingHello
        // Where replies go: this connection, or the one that resumed the session.
        var outbound = firstOutbound
        var attachment: SessionResumptions.Attachment?
        var ending = Ending.here
        var sessionId = ""
        var resumeToken = ""
        // Counts phase changes: a timer's event carries the number of the phase that started it, so
        // the timer of a phase already left is ignored.
        var phaseNumber = 0
        var admission: SessionAdmissions.Holder?
        await withTaskGroup(of: Void.self) { timers in
            func startTimer(_ duration: Duration) {
                let number = phaseNumber
                timers.addTask {
                    try? await Task.sleep(for: duration)
                    if !Task.isCancelled { continuation.yield(.timeout(phaseNumber: number)) }
                }
            }
            func send(_ message: SignalingMessage) async {
                do {
                    try await outbound.write(.text(message.jsonText()))
                } catch {
                    logger.debug("signaling write failed", metadata: ["error": "\(error)"])
                }
            }
            func fail(_ error: PreflightError, callSid: String? = nil) async {
                logger.info(
                    "signaling session refused",
                    metadata: ["code": "\(error.code)", "reason": "\(UntrustedText.excerpt(error.message, limit: 240))"])
                await send(.error(.init(code: error.code.rawValue, message: error.message, callSid: callSid)))
            }

            startTimer(configuration.signalingTimeout)
            loop: for await event in events {
                let disposition: Disposition
                switch (event, phase) {
                case (.closed, .awaitingHello), (.closed, .awaitingInvite):
                    // Nothing to resume before a call: the client signs in again.
                    break loop
                case (.closed(let protocolError), .inCall):
                    // The connection was lost without a hangup: the session (and its call's
                    // media) waits for the client to resume it on a new connection. A client
                    // that broke the protocol gets no second chance.
                    guard !protocolError, configuration.sessionResumeWindow > .zero, !resumeToken.isEmpty else { break loop }
                    attachment?.ended.finish()
                    logger.debug("signaling session parked", metadata: ["sessionId": "\(sessionId)"])
                    guard let resumed = await edge.resumptions.park(
                        sessionId: sessionId, token: resumeToken, events: continuation,
                        until: .now + configuration.sessionResumeWindow)
                    else {
                        logger.info("signaling session not resumed in time", metadata: ["sessionId": "\(sessionId)"])
                        attachment = nil
                        ending = .connectionLost
                        break loop
                    }
                    attachment = resumed
                    outbound = resumed.outbound
                    ending = .connectionLost
                    // A new token for the next loss: the one just used opens nothing more.
                    var random = SystemRandomNumberGenerator()
                    resumeToken = Self.hex(&random, bytes: 16)
                    await send(.resumed(.init(sessionId: sessionId, callSid: phase.callSid, resumeToken: resumeToken)))
                    disposition = .proceed
                case (.message(.resume(let request)), .awaitingHello):
                    // This connection continues another session: its reader feeds that one.
                    let (ended, endedContinuation) = AsyncStream<Never>.makeStream()
                    guard edge.resumptions.resume(
                        sessionId: request.sessionId, token: request.resumeToken,
                        attachment: SessionResumptions.Attachment(outbound: outbound, ended: endedContinuation),
                        redirect: { target in reader.target.withLock { $0 = target } })
                    else {
                        await fail(PreflightError(
                            code: .sessionResumeRefused, message: "signaling: no session to resume with this id and token"))
                        disposition = .end
                        break
                    }
                    ending = .resumedOther(ended: ended)
                    break loop
                case (.malformed(let error), _):
                    await fail(error, callSid: phase.callSid)
                    disposition = .end
                case (.timeout(let number), _) where number != phaseNumber:
                    continue loop
                case (.timeout, .awaitingHello), (.timeout, .awaitingInvite):
                    await fail(PreflightError(
                        code: .signalingTimeout,
                        message: "signaling: no \(phase.awaited) within \(configuration.signalingTimeout)"))
                    disposition = .end
                case (.timeout, .inCall(let callSid, _)):
                    await send(.hangup(.init(
                        callSid: callSid, reason: "maximum test duration of \(configuration.maximumTestDuration) reached",
                        code: PreflightError.Code.testDurationExceeded.rawValue)))
                    disposition = .end
                case (.message(.hello(let token, _)), .awaitingHello):
                    do throws(PreflightError) {
                        let claims = try await edge.verifier.verify(token)
                        // Counted only now, with a valid token: a connection that never
                        // authenticates holds no session slot.
                        let identity = claims.grants.identity ?? ""
                        admission = try edge.admissions.withLock { admissions throws(PreflightError) in
                            try admissions.admit(account: claims.sub, identity: identity)
                        }
                        var random = SystemRandomNumberGenerator()
                        sessionId = "SS" + Self.hex(&random, bytes: 16)
                        resumeToken = configuration.sessionResumeWindow > .zero ? Self.hex(&random, bytes: 16) : ""
                        await send(.welcome(.init(
                            edge: configuration.edgeName, sessionId: sessionId, iceServers: iceServers(for: claims),
                            resumeToken: resumeToken.isEmpty ? nil : resumeToken)))
                        phase = .awaitingInvite(claims)
                        phaseNumber += 1
                        startTimer(configuration.signalingTimeout)
                        disposition = .proceed
                    } catch {
                        await fail(error)
                        disposition = .end
                    }
                case (.message(.invite(let invite)), .awaitingInvite(let claims)):
                    do throws(PreflightError) {
                        let (callSid, ufrag, application) = try await answer(invite, claims: claims, send: send)
                        phase = .inCall(callSid: callSid, ufrag: ufrag)
                        phaseNumber += 1
                        startTimer(configuration.maximumTestDuration)
                        if application == .recordPlayback {
                            timers.addTask {
                                let (reason, code) = await recordAndPlayBack(ufrag: ufrag)
                                continuation.yield(.applicationFinished(reason: reason, code: code))
                            }
                        }
                        disposition = .proceed
                    } catch {
                        await fail(error)
                        disposition = .end
                    }
                case (.applicationFinished(let reason, let code), .inCall(let callSid, _)):
                    await send(.hangup(.init(callSid: callSid, reason: reason, code: code?.rawValue)))
                    disposition = .end
                case (.message(.hangup), .inCall):
                    disposition = .end
                case (.message(let message), _):
                    await fail(PreflightError(
                        code: .malformed, message: "signaling: unexpected \"\(message.type)\" while waiting for \(phase.awaited)"),
                        callSid: phase.callSid)
                    disposition = .end
                case (.applicationFinished, _):
                    continue loop
                }
                if case .end = disposition { break loop }
            }
            if case .resumedOther = ending {
                // This connection's own session never began (no hello): nothing to release.
                timers.cancelAll()
                return
            }
            if case .inCall(_, let ufrag) = phase {
                edge.media.removeSession(localUfrag: ufrag)
            }
            if let admission {
                edge.admissions.withLock { $0.release(admission) }
            }
            // A session that moved ends on its new connection: that one closes itself.
            attachment?.ended.finish()
            timers.cancelAll()
        }
        return ending
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
        if case .inCall(let callSid, _) = self { return callSid }
        return nil
    }

    var awaited: String {
        switch self {
        case .awaitingHello: "hello"
        case .awaitingInvite: "invite"
        case .inCall: "hangup"
        }
    }
}

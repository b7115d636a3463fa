import Foundation
import HummingbirdWebSocket
import NIOWebSocket
import Logging
import PreflightCore
import Synchronization

/// One signaling connection on the edge: hello → welcome, invite → ringing → answer, then the call
/// until either side hangs up (docs/protocol.md).
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

    private enum Event: Sendable {
        case message(SignalingMessage)
        case malformed(PreflightError)
        case closed
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

    /// Serves the connection until the client leaves or the session ends, then closes it.
    ///
    /// - Throws: the WebSocket library's error when the client broke the WebSocket protocol
    ///   (text that is not UTF-8, a message over the size limit): rethrown, the library closes
    ///   the connection with the matching code (1007, 1009).
    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let (events, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingOldest(Self.inboundBuffer))
        let reader = ReaderState()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await read(inbound, into: continuation, state: reader)
            }
            await handleEventsUntilTheSessionEnds(events, postingTo: continuation, replyingOn: outbound)
            continuation.finish()
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

    /// What the reader and the session loop tell each other.
    final class ReaderState: Sendable {
        /// Set by the loop when the session is over: the reader stops parsing.
        let sessionEnded = Atomic(false)
        /// Set by the reader before it rethrows a WebSocket protocol error.
        let protocolError = Atomic(false)
    }

    /// Parses the client's frames into events until the connection ends or the reader is
    /// cancelled. When the loop falls behind (the buffer is full) the stream is finished, which
    /// ends the session. Once the session has ended it reads on without parsing, until the
    /// client's close frame.
    private func read(
        _ inbound: WebSocketInboundStream, into continuation: AsyncStream<Event>.Continuation, state: ReaderState
    ) async throws {
        var flooded = false
        var discarded = 0
        func deliver(_ event: Event) {
            if case .dropped = continuation.yield(event) {
                // Ends the session; what follows is read and discarded like after any end.
                logger.info("signaling session ended: the client sends faster than the protocol allows")
                continuation.finish()
                flooded = true
            }
        }
        var iterator = inbound.makeAsyncIterator()
        do {
            while let message = try await iterator.nextMessage(maxSize: SignalingMessage.maximumTextLength) {
                if flooded || state.sessionEnded.load(ordering: .acquiring) {
                    discarded += 1
                    if discarded > Self.closeDrainMessages { return }
                    continue
                }
                let event: Event
                switch message {
                case .text(let text):
                    do throws(PreflightError) {
                        event = .message(try SignalingMessage(jsonText: text))
                    } catch {
                        event = .malformed(error)
                    }
                case .binary:
                    event = .malformed(PreflightError(code: .malformed, message: "signaling: binary frames are not part of the protocol"))
                }
                deliver(event)
            }
        } catch is CancellationError {
            // The session ended and the client did not close in time.
        } catch {
            if Task.isCancelled { return }
            logger.debug("signaling connection ended", metadata: ["error": "\(UntrustedText.excerpt("\(error)", limit: 200))"])
            state.protocolError.store(true, ordering: .releasing)
            deliver(.closed)
            throw error
        }
        deliver(.closed)
    }

    /// The session's one owner: takes the events in order, moves the session through its phases
    /// (hello, invite, call), answers on `outbound`, and posts its own events (a phase's timeout,
    /// the record-playback application's end) to `continuation`. Returns when the session ends,
    /// after releasing its media session and admission.
    private func handleEventsUntilTheSessionEnds(
        _ events: AsyncStream<Event>, postingTo continuation: AsyncStream<Event>.Continuation,
        replyingOn outbound: WebSocketOutboundWriter
    ) async {
        let configuration = edge.configuration
        var phase = Phase.awaitingHello
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
                case (.closed, _):
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
                        await send(.welcome(.init(
                            edge: configuration.edgeName, sessionId: "SS" + Self.hex(&random, bytes: 16),
                            iceServers: iceServers(for: claims))))
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
            if case .inCall(_, let ufrag) = phase {
                edge.media.removeSession(localUfrag: ufrag)
            }
            if let admission {
                edge.admissions.withLock { $0.release(admission) }
            }
            timers.cancelAll()
        }
    }

    /// Routes an invite: picks the application and codec, opens the media session and answers.
    private func answer(
        _ invite: SignalingMessage.Invite, claims: AccessTokenClaims, send: (SignalingMessage) async -> Void
    ) async throws(PreflightError) -> (callSid: String, ufrag: String, application: TestApplication) {
        let configuration = edge.configuration
        try invite.ice.validate()
        guard let codec = invite.codecs.first(where: { $0.uppercased() == "PCMU" }) else {
            throw PreflightError(
                code: .unsupportedCodec, message: "call: none of the codecs \(UntrustedText.excerpt("\(invite.codecs)", limit: 120)) is supported; the edge speaks PCMU")
        }
        let sid = claims.grants.voice?.outgoing?.applicationSID ?? ""
        guard let application = configuration.applications[sid] else {
            throw PreflightError(
                code: .callDeclined, message: "call: application \(UntrustedText.quoted(sid)) is not served by this edge")
        }
        if let owner = configuration.applicationAccounts[sid], owner != claims.sub {
            throw PreflightError(
                code: .callDeclined, message: "call: application \(UntrustedText.quoted(sid)) does not belong to the token's account")
        }
        var random = SystemRandomNumberGenerator()
        let callSid = "CA" + Self.hex(&random, bytes: 16)
        let (ufrag, password) = ICEParameters.randomCredentials()
        edge.media.addSession(
            ICELiteCredentials(localUfrag: ufrag, localPassword: password, remoteUfrag: invite.ice.ufrag),
            application: application)
        await send(.ringing(callSid: callSid))
        let address = advertisedAddress
        let candidate = ICECandidate(
            foundation: "1", priority: ICECandidate.priority(typePreference: 126, localPreference: 65535, component: 1),
            address: address, port: UInt16(clamping: configuration.advertisedMediaPort ?? mediaPort), type: .host)
        await send(.answer(.init(
            callSid: callSid, ice: ICEParameters(ufrag: ufrag, pwd: password, candidates: [candidate], lite: true),
            codec: codec.uppercased(), payloadType: MuLaw.payloadType, application: application.rawValue)))
        logger.info(
            "call answered",
            metadata: [
                "callSid": "\(callSid)", "application": "\(application.rawValue)",
                "identity": "\(UntrustedText.excerpt(claims.grants.identity ?? ""))",
            ])
        return (callSid, ufrag, application)
    }

    /// The record-playback flow: wait for the caller's audio, record it, play it back, pause.
    private func recordAndPlayBack(ufrag: String) async -> (reason: String, code: PreflightError.Code?) {
        let configuration = edge.configuration
        let media = edge.media
        let clock = ContinuousClock()
        let deadline = clock.now + configuration.recordingStartTimeout
        var firstMedia: Double?
        while firstMedia == nil {
            firstMedia = media.statistics(localUfrag: ufrag)?.firstMediaTime
            if firstMedia != nil { break }
            guard clock.now < deadline, (try? await Task.sleep(for: .milliseconds(20))) != nil else {
                return ("no audio to record within \(configuration.recordingStartTimeout)", .connectionError)
            }
        }
        let recordUntil = (firstMedia ?? media.now) + configuration.recordingDuration.inSeconds
        while media.now < recordUntil, (media.statistics(localUfrag: ufrag)?.recordedFrames ?? 0) < configuration.media.maximumRecordingFrames {
            guard (try? await Task.sleep(for: .milliseconds(20))) != nil else { return ("cancelled", nil) }
        }
        let played = await media.playRecording(localUfrag: ufrag)
        logger.debug("playback done", metadata: ["frames": "\(played)"])
        try? await Task.sleep(for: configuration.playbackPause)
        return ("completed", nil)
    }

    /// The address the edge's media candidate and STUN URL advertise.
    var advertisedAddress: String {
        let configuration = edge.configuration
        let address = configuration.advertisedAddress ?? configuration.host
        return address == "0.0.0.0" || address == "::" ? "127.0.0.1" : address
    }

    /// The ICE servers of a welcome: the edge's own STUN (when offered), then the configured
    /// servers, TURN ones without a username given time-limited credentials for the identity.
    func iceServers(for claims: AccessTokenClaims) -> [ICEServer] {
        let configuration = edge.configuration
        var servers: [ICEServer] = []
        if configuration.offersSTUN {
            let host = advertisedAddress.contains(":") ? "[\(advertisedAddress)]" : advertisedAddress
            servers.append(ICEServer(urls: ["stun:\(host):\(configuration.advertisedMediaPort ?? mediaPort)"]))
        }
        // Never valid longer than the token that earned them (its expiry is range-checked).
        let now = Int64(Date().timeIntervalSince1970)
        let tokenExpiry = claims.exp.flatMap { $0.isFinite && abs($0) < 1e15 ? Int64($0.rounded(.down)) : nil } ?? now
        let lifetime = min(max(0, configuration.turnCredentialLifetime.components.seconds), 366 * 86_400)
        let expiry = min(now + lifetime, tokenExpiry)
        for var server in configuration.iceServers {
            if server.username == nil, let secret = configuration.turnSecret,
                server.urls.contains(where: { $0.hasPrefix("turn:") || $0.hasPrefix("turns:") })
            {
                let credentials = TURNRESTCredentials(
                    secret: secret, identity: claims.grants.identity ?? claims.sub, expiry: expiry)
                server.username = credentials.username
                server.credential = credentials.password
            }
            servers.append(server)
        }
        return servers
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

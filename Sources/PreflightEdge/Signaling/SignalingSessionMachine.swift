import Logging
import PreflightCore

/// The edge's side of one signaling session (docs/protocol.md), sans-IO: inputs and the time go
/// in (``handle(_:now:)``, ``poll(now:)``), messages to send and effects for the driver come out
/// (``takeOutputs()``), with one deadline (``nextDeadline``) for the driver's one timer.
/// `SessionLoop` drives it over a WebSocket; tests drive it with a fake clock and no socket.
///
/// **Phases.** `awaitingHello` → (`hello`: ``Output/verifyToken(_:)``, then
/// ``Input/tokenVerified(_:)``) → `ready` → `inCall` → `ready` … A connection whose first
/// message is `resume` continues another session instead (``Output/resumeOther(_:)``).
/// - `awaitingHello` and an unregistered `ready` must move on within the signaling timeout
///   (an `error` with 53002, and the end); a registered `ready` waits as long as it likes.
/// - A test application's call lasts at most the maximum test duration (a hangup with 70102,
///   and the end: one test a session); a call between clients at most the maximum call
///   duration (a hangup with 70106 to both parties; the session goes on).
/// - A caller's call rings for at most its dial application's ring timeout (a hangup with 31480).
/// - record-playback: recording starts with the caller's first packet, which must come within
///   the recording start timeout (else 31005 and the end); it stops when the media service says
///   the recording is full or its interval passed; the recording is played back
///   (``Output/playRecording(ufrag:)``), and after the playback pause the call completes.
/// - A probe's uplink arrival records go out every 100 ms.
/// - A call between clients that ends here keeps its media session answering checks for
///   ``mediaLinger`` (a client that has not read the hangup yet sees no refusal first).
///
/// **Ending.** A malformed or unexpected message ends the session with an `error` (70002).
/// A connection lost in a call parks the session (``Output/park(sessionId:token:)``) until the
/// driver says it was resumed (``Input/resumed``) or not (``Input/notResumed``); outside a call
/// it ends. Once ``isEnded``, everything the session held is released (media sessions, its
/// call, whose other party gets 31005, its registration, its admission) and no input changes
/// anything.
///
/// **Collaborators** (``Environment``): the call router, the media service and the admissions
/// are called directly (none of them waits: they are state behind a lock); what waits (token
/// verification, parking, playback, a downlink probe) is an output whose result comes back as an
/// input. What concerns this session from elsewhere reaches it through its ``SessionNoticeSink``.
struct SignalingSessionMachine {
    /// What a session works with.
    struct Environment {
        var configuration: EdgeConfiguration
        var calls: any CallRouting
        var media: any MediaSessions
        var admissions: any SessionAdmitting
        var callEvents: CallEventLog
        /// Hands a party's kept call events to the store.
        var storeEvents: @Sendable (StoreWriter.Batch) -> Void
        /// Where the router and the media service reach this session.
        var notices: any SessionNoticeSink
        /// The edge's one media candidate (its advertised address and media port).
        var hostCandidate: ICECandidate
        /// The ICE servers a welcome lists for a token.
        var iceServers: @Sendable (AccessTokenClaims) -> [ICEServer]
        /// Random hex of this many bytes (session ids, call sids, resume tokens).
        var randomHex: @Sendable (Int) -> String
        /// Whether the edge drains: a `hello` is refused (70109).
        var isDraining: @Sendable () -> Bool = { false }
        /// Milliseconds since the Unix epoch, for call events' timestamps.
        var unixMilliseconds: @Sendable () -> Int64
        var logger: Logger
    }

    enum Input: Sendable {
        case message(SignalingMessage)
        case malformed(PreflightError)
        /// The connection ended; `protocolError` when the client broke the WebSocket protocol
        /// (the session is then not resumed).
        case closed(protocolError: Bool)
        /// The answer to ``Output/verifyToken(_:)``.
        case tokenVerified(Result<AccessTokenClaims, PreflightError>)
        case call(CallRouter.Notice)
        case media(SessionMediaNotice)
        /// A new connection proved this session's resume token `token` while this one still
        /// holds it: the session parks at once for it (unless it parked and was resumed
        /// meanwhile: its token is then another).
        case takenOver(token: String)
        /// The parked session was resumed on a new connection (which now gets what is sent).
        case resumed
        /// Nobody resumed the parked session in time.
        case notResumed
        /// The answer to ``Output/resumeOther(_:)``: whether that session was resumed.
        case resumedOther(Bool)
        /// The edge drains: a session in no call ends (70109), one in a call ends with it;
        /// `limitReached`: the call ends now too.
        case draining(limitReached: Bool)
    }

    enum Output: Sendable {
        /// Write this message on the connection.
        case send(SignalingMessage)
        /// Verify this access token, then ``Input/tokenVerified(_:)``.
        case verifyToken(String)
        /// Session `sessionId` may be taken over with `token` (after its welcome, after each resume).
        case attachResumption(sessionId: String, token: String)
        /// The old connection's reader feeds this session no more (it was taken over).
        case detachReader
        /// Park the session until it is resumed on a new connection, then ``Input/resumed`` or
        /// ``Input/notResumed``.
        case park(sessionId: String, token: String)
        /// This connection continues the session `resume` names, then ``Input/resumedOther(_:)``.
        case resumeOther(SignalingMessage.Resume)
        /// Play a record-playback session's recording back, then ``SessionMediaNotice/playbackFinished(ufrag:)``.
        case playRecording(ufrag: String)
        /// Send a probe session's downlink probe.
        case runProbeDownlink(ufrag: String)
        /// The session ended: nothing may be taken over or resumed.
        case detachResumption(sessionId: String)
    }

    enum Phase {
        case awaitingHello
        /// `hello` came; its token is being verified.
        case verifying
        /// Signed in with these claims, in no call: may invite, register, accept.
        case ready(AccessTokenClaims)
        case inCall(ActiveCall)
    }

    let environment: Environment
    var phase = Phase.awaitingHello
    private(set) var isEnded = false
    /// Waiting for ``Input/resumed`` or ``Input/notResumed``.
    private(set) var isParked = false
    private(set) var sessionId = ""
    private(set) var resumeToken = ""
    var outputs: [Output] = []
    /// When the phase's own limit runs out: the signaling timeout, or the call's maximum.
    var phaseDeadline: Double?
    var admission: SessionAdmissions.Holder?
    /// This session as a party of calls between clients (from its `hello`).
    var party: CallRouter.Party?
    /// Whether incoming calls ring here.
    var registered = false
    /// Calls ringing here now (at most ``CallRouter/maximumOffersPerSession``).
    var offered: Set<String> = []
    /// An `accept` waiting for another edge's decision.
    var pendingAccept: PendingAccept?
    /// The edge drains: the session ends once it is in no call.
    var endsAfterCall = false
    /// Media sessions of calls that ended here and when each may go.
    var lingering: [String: Double] = [:]
    /// When the session's last call messages went out (at most ``CallMessage/maximumPerWindow``).
    var messageTimes: [Double] = []
    /// The session's own Insights rate (``CallLimits/sessionInsightsRate``).
    var insightsBucket: TokenBucket

    /// How long a call's media session outlives its call, seconds.
    static let mediaLinger = 2.0
    /// How often a probe's uplink arrival records go out, seconds.
    static let probeFlushInterval = 0.1

    var configuration: EdgeConfiguration { environment.configuration }
    var logger: Logger { environment.logger }

    /// A session that waits for its `hello` from `now` on.
    init(environment: Environment, now: Double) {
        self.environment = environment
        insightsBucket = CallEventLog.sessionBucket(environment.configuration.callLimits)
        phaseDeadline = now + configuration.signalingTimeout.inSeconds
    }

    /// What to do, in order; the list is emptied.
    mutating func takeOutputs() -> [Output] {
        defer { outputs.removeAll(keepingCapacity: true) }
        return outputs
    }

    /// When ``poll(now:)`` has something to do; `nil` when nothing waits on time.
    var nextDeadline: Double? {
        guard !isEnded, !isParked else { return nil }
        var deadlines = [phaseDeadline, lingering.values.min(), pendingAccept?.until]
        if case .inCall(let call) = phase {
            deadlines += [call.answered ? nil : call.ringDeadline, call.probeFlushAt, call.recording?.deadline]
        }
        return deadlines.compactMap { $0 }.min()
    }

    // MARK: Inputs

    /// Takes one input at `now` (seconds on the driver's monotonic clock).
    mutating func handle(_ input: Input, now: Double) {
        guard !isEnded else { return }
        switch input {
        case .resumed:
            resumed()
        case .notResumed:
            logger.info("signaling session not resumed in time", metadata: ["sessionId": "\(sessionId)"])
            end()
        case .resumedOther(let resumed):
            if !resumed {
                fail(PreflightError(code: .sessionResumeRefused, message: "signaling: no session to resume with this id and token"))
            }
            isEnded = true
        case .tokenVerified(let result):
            guard case .verifying = phase else { return }
            signIn(result, now: now)
        case .closed(let protocolError):
            logger.debug("signaling connection closed", metadata: ["phase": "\(phase.awaited)", "callSid": "\(phase.callSid ?? "none")"])
            if case .inCall = phase { park(protocolError: protocolError) } else { end() }
        case .takenOver(let token):
            // Outside a call nothing is resumed: the new connection is refused.
            guard case .inCall = phase, token == resumeToken, !isParked else { return }
            // What the old connection still sends goes nowhere: the new one feeds the session.
            outputs.append(.detachReader)
            park(protocolError: false)
        case .malformed(let error):
            fail(error, callSid: phase.callSid)
            end()
        case .draining(let limitReached):
            drain(limitReached: limitReached, now: now)
        case .message(let message):
            handle(message, now: now)
        case .call(let notice):
            handle(notice, now: now)
        case .media(let notice):
            handle(notice, now: now)
        }
    }

    /// Does what is due at `now`: the phase's limit, a ring timeout, lingering media sessions,
    /// a probe's flush, the record-playback steps.
    mutating func poll(now: Double) {
        guard !isEnded, !isParked else { return }
        for (ufrag, until) in lingering where until <= now {
            lingering.removeValue(forKey: ufrag)
            environment.media.removeSession(localUfrag: ufrag)
        }
        if let pending = pendingAccept, pending.until <= now {
            pendingAccept = nil
            environment.calls.reject(callSid: pending.callSid, by: sessionId)
            lostCall(pending.callSid, reason: "the caller's edge did not answer", code: .connectionError)
        }
        if case .inCall(var call) = phase {
            if !call.answered, let ring = call.ringDeadline, ring <= now {
                call.ringDeadline = nil
                phase = .inCall(call)
                if environment.calls.ringTimedOut(callSid: call.callSid) {
                    outputs.append(.send(.hangup(.init(
                        callSid: call.callSid, reason: "no answer", code: PreflightError.Code.calleeUnavailable.rawValue))))
                    closeCall(call, now: now)
                    return
                }
            }
            if let flush = call.probeFlushAt, flush <= now {
                call.probeFlushAt = now + Self.probeFlushInterval
                phase = .inCall(call)
                if let ufrag = call.ufrag, let batch = environment.media.takeProbeArrivals(localUfrag: ufrag) {
                    outputs.append(.send(.probeArrivals(batch)))
                }
            }
            if let deadline = call.recording?.deadline, deadline <= now {
                advanceRecording(call, now: now)
                if isEnded { return }
            }
        }
        if let deadline = phaseDeadline, deadline <= now { phaseTimedOut(now: now) }
    }

    /// The phase's limit ran out.
    private mutating func phaseTimedOut(now: Double) {
        phaseDeadline = nil
        switch phase {
        case .awaitingHello, .verifying, .ready:
            fail(PreflightError(
                code: .signalingTimeout, message: "signaling: no \(phase.awaited) within \(configuration.signalingTimeout)"))
            end()
        case .inCall(let call) where call.application != nil:
            outputs.append(.send(.hangup(.init(
                callSid: call.callSid, reason: "maximum test duration of \(configuration.maximumTestDuration) reached",
                code: PreflightError.Code.testDurationExceeded.rawValue))))
            end()
        case .inCall(let call):
            let reason = "maximum call duration of \(configuration.maximumCallDuration) reached"
            outputs.append(.send(.hangup(.init(callSid: call.callSid, reason: reason, code: PreflightError.Code.callDurationExceeded.rawValue))))
            environment.calls.hangUp(callSid: call.callSid, by: sessionId, reason: reason, code: .callDurationExceeded)
            closeCall(call, now: now)
        }
    }

    // MARK: Phases

    /// Enters `next` with its limit: an unregistered session in no call must invite within the
    /// signaling timeout, a registered one waits as long as it likes; a call has its maximum.
    mutating func enter(_ next: Phase, now: Double) {
        phase = next
        switch next {
        case .awaitingHello, .verifying:
            break
        case .ready:
            phaseDeadline = registered ? nil : now + configuration.signalingTimeout.inSeconds
        case .inCall(let call):
            phaseDeadline =
                now + (call.application == nil ? configuration.maximumCallDuration : configuration.maximumTestDuration).inSeconds
        }
    }

    /// Ends the session: everything it holds is released.
    mutating func end() {
        guard !isEnded else { return }
        isEnded = true
        guard !sessionId.isEmpty else { return }
        outputs.append(.detachResumption(sessionId: sessionId))
        if case .inCall(let call) = phase {
            if let ufrag = call.ufrag { environment.media.removeSession(localUfrag: ufrag) }
            if let ufrag = call.subscribeUfrag { environment.media.removeSession(localUfrag: ufrag) }
            if call.application == nil {
                environment.calls.hangUp(
                    callSid: call.callSid, by: sessionId, reason: "the other party's connection was lost", code: .connectionError)
            }
        }
        for ufrag in lingering.keys { environment.media.removeSession(localUfrag: ufrag) }
        lingering.removeAll()
        if let party { environment.calls.sessionEnded(party) }
        if let admission { environment.admissions.release(admission) }
        admission = nil
    }

    static let drainingError = PreflightError(
        code: .edgeDraining, message: "edge: draining before it stops; register or call on another edge")

    /// The edge drains: a session in no call ends at once; one in a call when the call ends, or
    /// now when the drain limit passed (a hangup with 70109; a call between clients ends for
    /// the other party with it too).
    private mutating func drain(limitReached: Bool, now: Double) {
        switch phase {
        case .awaitingHello, .verifying:
            endsAfterCall = true
        case .ready where pendingAccept != nil && !limitReached:
            // Its accept of another edge's call waits for the caller's edge's decision: the
            // call may already be up there. It goes on like a call (the decision, or its 5 s).
            endsAfterCall = true
        case .ready:
            fail(Self.drainingError)
            end()
        case .inCall(let call):
            endsAfterCall = true
            guard limitReached else { return }
            outputs.append(.send(.hangup(.init(callSid: call.callSid, reason: Self.drainingError.message, code: Self.drainingError.code.rawValue))))
            if call.application == nil {
                environment.calls.hangUp(callSid: call.callSid, by: sessionId, reason: Self.drainingError.message, code: .edgeDraining)
            }
            closeCall(call, now: now)
        }
    }

    /// The connection was lost in a call without a hangup: the session (and its call's media)
    /// waits for the client to resume it on a new connection. A client that broke the protocol
    /// gets no second chance. What happens meanwhile waits in the driver's queue.
    private mutating func park(protocolError: Bool) {
        guard !protocolError, configuration.sessionResumeWindow > .zero, !resumeToken.isEmpty else { return end() }
        logger.debug("signaling session parked", metadata: ["sessionId": "\(sessionId)"])
        isParked = true
        outputs.append(.park(sessionId: sessionId, token: resumeToken))
    }

    private mutating func resumed() {
        guard isParked else { return }
        isParked = false
        // A new token for the next loss: the one just used opens nothing more.
        resumeToken = environment.randomHex(16)
        outputs.append(.attachResumption(sessionId: sessionId, token: resumeToken))
        outputs.append(.send(.resumed(.init(sessionId: sessionId, callSid: phase.callSid, resumeToken: resumeToken))))
    }

    /// `hello`'s token verified (or not): the session is admitted (counted only now, with a valid
    /// token: a connection that never authenticates holds no session slot) and welcomed.
    private mutating func signIn(_ result: Result<AccessTokenClaims, PreflightError>, now: Double) {
        do throws(PreflightError) {
            let claims = try result.get()
            if environment.isDraining() { throw Self.drainingError }
            let identity = claims.grants.identity ?? ""
            admission = try environment.admissions.admit(account: claims.sub, identity: identity)
            sessionId = "SS" + environment.randomHex(16)
            resumeToken = configuration.sessionResumeWindow > .zero ? environment.randomHex(16) : ""
            party = CallRouter.Party(sessionId: sessionId, account: claims.sub, identity: identity, notices: environment.notices)
            outputs.append(.attachResumption(sessionId: sessionId, token: resumeToken))
            outputs.append(.send(.welcome(.init(
                edge: configuration.edgeName, sessionId: sessionId, iceServers: environment.iceServers(claims),
                resumeToken: resumeToken.isEmpty ? nil : resumeToken, features: [SignalingMessage.Welcome.candidatesFeature]))))
            enter(.ready(claims), now: now)
        } catch {
            fail(error)
            end()
        }
    }

    // MARK: Writing

    mutating func fail(_ error: PreflightError, callSid: String? = nil) {
        logger.info(
            "signaling session refused",
            metadata: ["code": "\(error.code)", "reason": "\(UntrustedText.excerpt(error.message, limit: 240))"])
        outputs.append(.send(.error(.init(code: error.code.rawValue, message: error.message, callSid: callSid))))
    }
}

extension SignalingSessionMachine.Phase {
    var callSid: String? {
        if case .inCall(let call) = self { return call.callSid }
        return nil
    }

    /// The claims of a signed-in session.
    var claims: AccessTokenClaims? {
        switch self {
        case .awaitingHello, .verifying: nil
        case .ready(let claims): claims
        case .inCall(let call): call.claims
        }
    }

    var awaited: String {
        switch self {
        case .awaitingHello, .verifying: "hello"
        case .ready: "invite"
        case .inCall: "hangup"
        }
    }
}

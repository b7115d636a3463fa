import Logging
import PreflightCore

extension SignalingSessionMachine {
    /// The session's call: a test application's, a probe, a connectivity check, or a call
    /// between clients.
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
        /// A caller's call between clients stops ringing then.
        var ringDeadline: Double?
        /// A probe's next flush of its uplink arrival records.
        var probeFlushAt: Double?
        /// A record-playback call's step.
        var recording: RecordingStage?
    }

    /// Where a record-playback call is.
    enum RecordingStage {
        /// Waiting for the caller's first packet until then; recording for `duration` seconds
        /// once it came.
        case awaitingMedia(until: Double, duration: Double)
        case recording(until: Double)
        case playing
        /// The playback went out; the call completes then.
        case pausing(until: Double)

        var deadline: Double? {
            switch self {
            case .awaitingMedia(let until, _), .recording(let until), .pausing(let until): until
            case .playing: nil
            }
        }
    }

    /// A client's message.
    mutating func handle(_ message: SignalingMessage, now: Double) {
        logger.debug("signaling message", metadata: ["type": "\(message.type)", "callSid": "\(phase.callSid ?? "none")"])
        switch (message, phase) {
        case (.resume(let request), .awaitingHello):
            outputs.append(.resumeOther(request))
        case (.hello(let token, _), .awaitingHello):
            phase = .verifying
            outputs.append(.verifyToken(token))
        case (.probe(let probe), .ready(let claims)):
            startProbe(probe, claims: claims, now: now)
        case (.connectivityCheck(let check), .ready(let claims)):
            startCheck(check, claims: claims, now: now)
        case (.probeTrain(let train), .inCall(let call)) where call.isProbe:
            runTrain(train, call: call)
        case (.register, .ready), (.register, .inCall):
            register()
        case (.invite(let invite), .ready(let claims)):
            placeCall(invite, claims: claims, now: now)
        case (.accept(let accept), _) where party != nil:
            answerIncoming(accept, now: now)
        case (.reject(let callSid), _) where party != nil:
            if offered.remove(callSid) != nil { environment.calls.reject(callSid: callSid, by: sessionId) }
        case (.message(let message), _) where phase.claims != nil:
            relay(message, now: now)
        case (.insights(let insights), _) where phase.claims != nil:
            record(insights, now: now)
        case (.candidates(let candidates), _) where phase.claims != nil:
            record(candidates, now: now)
        case (.hangup, .inCall(let call)) where call.application != nil:
            end()
        case (.hangup(let hangup), .inCall(let call)) where hangup.callSid == call.callSid:
            environment.calls.hangUp(callSid: call.callSid, by: sessionId, reason: hangup.reason ?? "hung up", code: nil)
            closeCall(call, now: now)
        case (.hangup(let hangup), _) where party != nil:
            // A call that already ended here (the edge's own hangup crossed the client's), or a
            // hangup of a call still ringing here: a rejection.
            logger.debug("hangup of a call not up here", metadata: [
                "callSid": "\(UntrustedText.excerpt(hangup.callSid))", "current": "\(phase.callSid ?? "none")"])
            if offered.remove(hangup.callSid) != nil { environment.calls.reject(callSid: hangup.callSid, by: sessionId) }
        default:
            fail(
                PreflightError(code: .malformed, message: "signaling: unexpected \"\(message.type)\" while waiting for \(phase.awaited)"),
                callSid: phase.callSid)
            end()
        }
    }

    /// `register`: calls to the token's identity ring here from now on; the token must allow
    /// incoming calls (`grants.voice.incoming.allow`).
    private mutating func register() {
        guard let claims = phase.claims, let party, claims.grants.voice?.incoming?.allow == true else {
            fail(PreflightError(
                code: .invalidAccessTokenGrants, message: "register: the access token does not allow incoming calls (grants.voice.incoming.allow)"))
            return end()
        }
        if !registered {
            registered = true
            environment.calls.register(party)
            // A registered session waits for calls as long as it likes: the invite limit goes.
            if case .ready = phase { phaseDeadline = nil }
            logger.info("registered for incoming calls", metadata: ["identity": "\(UntrustedText.excerpt(party.identity))"])
        }
        outputs.append(.send(.registered(identity: party.identity)))
    }

    /// `invite`: a test application's call, or (the `dial` application) a call to the client or
    /// route its `To` names.
    private mutating func placeCall(_ invite: SignalingMessage.Invite, claims: AccessTokenClaims, now: Double) {
        do throws(PreflightError) {
            let sid = claims.grants.voice?.outgoing?.applicationSID ?? ""
            if let owner = configuration.applicationAccounts[sid], owner != claims.sub {
                throw PreflightError(
                    code: .callDeclined, message: "call: application \(UntrustedText.quoted(sid)) does not belong to the token's account")
            }
            var application = configuration.applications[sid]
            if let dial = configuration.dialApplications[sid] {
                guard let to = invite.params["To"], !to.isEmpty else {
                    throw PreflightError(code: .calleeNotFound, message: "call: the dial application needs a \"To\" parameter")
                }
                switch DialTarget.resolve(to, routes: configuration.routes) {
                case .client(let identity)?:
                    return try ringClient(invite, to: to, identity: identity, configuration: dial, claims: claims, now: now)
                case .application(let target)?:
                    application = target
                case nil:
                    throw PreflightError(
                        code: .calleeNotFound,
                        message: "call: \(UntrustedText.quoted(to)) is neither a client (client:<identity>) nor a route of this edge")
                }
            }
            guard let application else {
                throw PreflightError(
                    code: .callDeclined, message: "call: application \(UntrustedText.quoted(sid)) is not served by this edge")
            }
            try answer(invite, application: application, claims: claims, now: now)
        } catch {
            fail(error)
            end()
        }
    }

    /// The caller's side of a `dial` call to a client: ring its devices, then answer the caller
    /// at once (answerOnBridge false) or when the callee answers.
    private mutating func ringClient(
        _ invite: SignalingMessage.Invite, to: String, identity: String, configuration dial: DialConfiguration,
        claims: AccessTokenClaims, now: Double
    ) throws(PreflightError) {
        guard let party else { return }
        try invite.ice.validate()
        let format = try Self.chooseCodec(invite.codecs)
        let srtp = try invite.srtp?.material()
        let callSid = "CA" + environment.randomHex(16)
        var params = invite.params
        params.removeValue(forKey: "To")
        try environment.calls.dial(callSid: callSid, from: party, identity: identity, to: to, params: params, format: format, at: now)
        openLog(callSid: callSid, claims: claims, role: .caller)
        outputs.append(.send(.ringing(callSid: callSid)))
        var call = ActiveCall(
            callSid: callSid, application: nil, role: .caller, remoteUfrag: invite.ice.ufrag, format: format, srtp: srtp,
            claims: claims)
        call.ringDeadline = now + dial.ringTimeout.inSeconds
        if !dial.answerOnBridge {
            let (ufrag, ice, key) = try openLeg(remoteUfrag: invite.ice.ufrag, srtp: srtp, format: format)
            call.ufrag = ufrag
            outputs.append(.send(.answer(.init(
                callSid: callSid, ice: ice, codec: format.name, payloadType: format.payloadType, application: "dial", srtp: key))))
            environment.calls.attachMedia(callSid: callSid, sessionId: sessionId, ufrag: ufrag)
        }
        enter(.inCall(call), now: now)
        logger.info(
            "call ringing", metadata: ["callSid": "\(callSid)", "to": "\(UntrustedText.excerpt(to))", "answerOnBridge": "\(dial.answerOnBridge)"])
    }

    /// `accept` of a call ringing here: the first device to accept gets it; one that comes too
    /// late (cancelled, answered elsewhere, busy here) gets a `hangup` with 31000 and the session goes on.
    private mutating func answerIncoming(_ accept: SignalingMessage.Accept, now: Double) {
        let srtp: SRTPKeyingMaterial?
        do throws(PreflightError) {
            try accept.ice.validate()
            srtp = try accept.srtp?.material()
        } catch {
            fail(error, callSid: accept.callSid)
            return end()
        }
        let format: AudioPayloadFormat
        do throws(PreflightError) {
            // Both legs carry the caller's codec: a device that cannot is turned away like one
            // that accepts too late, and the call rings on elsewhere.
            format = try Self.chooseCodec(accept.codecs, required: environment.calls.format(of: accept.callSid))
        } catch {
            if offered.remove(accept.callSid) != nil { environment.calls.reject(callSid: accept.callSid, by: sessionId) }
            outputs.append(.send(.hangup(.init(callSid: accept.callSid, reason: error.message, code: error.code.rawValue))))
            return
        }
        let outcome: CallRouter.AcceptOutcome =
            if offered.remove(accept.callSid) != nil, case .ready = phase, pendingAccept == nil, let party {
                environment.calls.accept(callSid: accept.callSid, by: party)
            } else {
                .lost
            }
        let pending = PendingAccept(
            callSid: accept.callSid, remoteUfrag: accept.ice.ufrag, srtp: srtp, format: format, until: now + Self.acceptDecisionWait)
        switch outcome {
        case .won:
            takeCall(pending, now: now)
        case .pending:
            // The call is another edge's: the device answers once that edge decides.
            pendingAccept = pending
        case .lost:
            environment.calls.reject(callSid: accept.callSid, by: sessionId)
            lostCall(accept.callSid, reason: "the call no longer rings here")
        }
    }

    /// An `accept` that another edge decides.
    struct PendingAccept {
        let callSid: String
        let remoteUfrag: String
        let srtp: SRTPKeyingMaterial?
        let format: AudioPayloadFormat
        /// Past this, the device gives up: the call ends for it (31005).
        let until: Double
    }

    /// How long a device waits for another edge's decision on its accept, seconds.
    static let acceptDecisionWait = 5.0

    /// A device that accepted too late, or lost the race: a hangup with 31000; the session goes on.
    mutating func lostCall(_ callSid: String, reason: String, code: PreflightError.Code = .generalCallError) {
        outputs.append(.send(.hangup(.init(callSid: callSid, reason: reason, code: code.rawValue))))
        if endsAfterCall {
            // The edge drains: the call this session waited for was its last.
            fail(Self.drainingError)
            end()
        }
    }

    /// The callee got the call: its leg opens and it gets its answer.
    mutating func takeCall(_ accept: PendingAccept, now: Double) {
        guard case .ready(let claims) = phase else { return }
        openLog(callSid: accept.callSid, claims: claims, role: .callee)
        let leg: (ufrag: String, ice: ICEParameters, srtp: SignalingMessage.SRTPKey?)
        do throws(PreflightError) {
            leg = try openLeg(remoteUfrag: accept.remoteUfrag, srtp: accept.srtp, format: accept.format)
        } catch {
            environment.calls.hangUp(
                callSid: accept.callSid, by: sessionId, reason: "the callee's media could not open", code: .connectionError)
            fail(error, callSid: accept.callSid)
            return end()
        }
        outputs.append(.send(.answer(.init(
            callSid: accept.callSid, ice: leg.ice, codec: accept.format.name, payloadType: accept.format.payloadType, application: "dial",
            srtp: leg.srtp))))
        environment.calls.attachMedia(callSid: accept.callSid, sessionId: sessionId, ufrag: leg.ufrag)
        enter(.inCall(.init(
            callSid: accept.callSid, ufrag: leg.ufrag, application: nil, role: .callee, answered: true,
            remoteUfrag: accept.remoteUfrag, format: accept.format, srtp: accept.srtp, claims: claims)), now: now)
        logger.info("call answered", metadata: ["callSid": "\(accept.callSid)"])
    }

    /// What the other party of a call did, or a call ringing here.
    mutating func handle(_ notice: CallRouter.Notice, now: Double) {
        switch notice {
        case .incoming(let incoming):
            guard registered else {
                environment.calls.reject(callSid: incoming.callSid, by: sessionId)
                return
            }
            offered.insert(incoming.callSid)
            outputs.append(.send(.incoming(incoming)))
        case .cancelled(let cancel):
            if offered.remove(cancel.callSid) != nil { outputs.append(.send(.cancel(cancel))) }
            if pendingAccept?.callSid == cancel.callSid {
                pendingAccept = nil
                lostCall(cancel.callSid, reason: cancel.reason ?? "the call no longer rings here")
            }
        case .acceptDecided(let callSid, let won):
            guard let pending = pendingAccept, pending.callSid == callSid else { return }
            pendingAccept = nil
            if won { takeCall(pending, now: now) } else { lostCall(callSid, reason: "answered elsewhere") }
        case .answered(let callSid):
            guard case .inCall(var call) = phase, call.callSid == callSid, call.role == .caller, !call.answered else { return }
            call.answered = true
            call.ringDeadline = nil
            if call.ufrag == nil {
                // answerOnBridge: the caller's media opens only now.
                guard let leg = try? openLeg(remoteUfrag: call.remoteUfrag, srtp: call.srtp, format: call.format) else {
                    let reason = "the caller's media could not open"
                    outputs.append(.send(.hangup(.init(callSid: callSid, reason: reason, code: PreflightError.Code.connectionError.rawValue))))
                    environment.calls.hangUp(callSid: callSid, by: sessionId, reason: reason, code: .connectionError)
                    return closeCall(call, now: now)
                }
                call.ufrag = leg.ufrag
                outputs.append(.send(.answer(.init(
                    callSid: callSid, ice: leg.ice, codec: call.format.name, payloadType: call.format.payloadType, application: "dial",
                    srtp: leg.srtp))))
                environment.calls.attachMedia(callSid: callSid, sessionId: sessionId, ufrag: leg.ufrag)
            }
            phase = .inCall(call)
        case .message(let message):
            guard case .inCall(let call) = phase, call.callSid == message.callSid else { return }
            outputs.append(.send(.message(message)))
        case .ended(let callSid, let reason, let code):
            guard case .inCall(let call) = phase, call.callSid == callSid else { return }
            outputs.append(.send(.hangup(.init(callSid: callSid, reason: reason, code: code?.rawValue))))
            closeCall(call, now: now)
        }
    }

    /// A call between clients ended here: its media closes and the session is ready again.
    mutating func closeCall(_ call: ActiveCall, now: Double) {
        if let ufrag = call.ufrag {
            let digits = environment.media.digits(localUfrag: ufrag)
            if !digits.isEmpty {
                logger.info("call digits", metadata: ["callSid": "\(call.callSid)", "role": "\(call.role.rawValue)", "digits": "\(digits)"])
            }
            // The leg's checks are still answered for a moment: a client that has not read the
            // hangup yet must not see its media refused first (and report 53405 for a rejection).
            environment.media.unlinkAll(localUfrag: ufrag)
            lingering[ufrag] = now + Self.mediaLinger
        }
        enter(.ready(call.claims), now: now)
        if endsAfterCall {
            fail(Self.drainingError)
            end()
        }
    }

    /// Opens a bridge leg for the client's ICE ufrag, encrypted when the client offered a key
    /// (the edge then makes its own for this leg): the edge's ICE parameters and SRTP key.
    func openLeg(remoteUfrag: String, srtp offered: SRTPKeyingMaterial?, format: AudioPayloadFormat) throws(PreflightError) -> (
        ufrag: String, ice: ICEParameters, srtp: SignalingMessage.SRTPKey?
    ) {
        let sending = offered.map { _ in SRTPKeyingMaterial.random() }
        let keys = offered.flatMap { receive in sending.map { (receive: receive, send: $0) } }
        let (credentials, ice) = makeCredentials(remoteUfrag: remoteUfrag)
        try environment.media.addBridgeLeg(credentials, srtp: keys, format: format)
        return (credentials.localUfrag, ice, sending.map(SignalingMessage.SRTPKey.init))
    }

    /// New ICE-lite credentials for a media session with the client's `remoteUfrag`, and the
    /// edge's side as the client gets it (one host candidate).
    func makeCredentials(remoteUfrag: String) -> (ICELiteCredentials, ICEParameters) {
        let (ufrag, password) = ICEParameters.randomCredentials()
        return (
            ICELiteCredentials(localUfrag: ufrag, localPassword: password, remoteUfrag: remoteUfrag),
            ICEParameters(ufrag: ufrag, pwd: password, candidates: [environment.hostCandidate], lite: true)
        )
    }

    /// Starts the Insights log of a call this session takes part in.
    func openLog(callSid: String, claims: AccessTokenClaims, role: CallRole) {
        environment.callEvents.open(callSid: callSid, account: claims.sub, identity: claims.grants.identity ?? "", role: role)
    }

    /// The offerer's first preference among the codecs the edge speaks (PCMU, opus), or
    /// `required` (a bridged call's codec, which both legs share: the edge does not transcode).
    /// - Throws: 70103 when no offered codec fits.
    static func chooseCodec(_ codecs: [String], required: AudioPayloadFormat? = nil) throws(PreflightError) -> AudioPayloadFormat {
        if let required {
            guard required.isOffered(in: codecs) else {
                throw PreflightError(
                    code: .unsupportedCodec,
                    message: "call: the call's codec is \(required.name) (both parties of a call share one) and \(UntrustedText.excerpt("\(codecs)", limit: 120)) does not offer it")
            }
            return required
        }
        guard let format = AudioPayloadFormat.firstKnown(of: codecs) else {
            throw PreflightError(
                code: .unsupportedCodec,
                message: "call: none of the codecs \(UntrustedText.excerpt("\(codecs)", limit: 120)) is supported; the edge speaks PCMU and opus")
        }
        return format
    }
}

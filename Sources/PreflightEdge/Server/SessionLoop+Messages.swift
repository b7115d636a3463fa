import Foundation
import Logging
import PreflightCore
import Synchronization

extension SessionLoop {
    /// `hello`: the token is verified and the session admitted (counted only now, with a valid
    /// token: a connection that never authenticates holds no session slot).
    mutating func hello(token: String) async -> SignalingSession.Disposition {
        do throws(PreflightError) {
            let claims = try await edge.verifier.verify(token)
            let identity = claims.grants.identity ?? ""
            admission = try edge.admissions.withLock { admissions throws(PreflightError) in
                try admissions.admit(account: claims.sub, identity: identity)
            }
            var random = SystemRandomNumberGenerator()
            sessionId = "SS" + SignalingSession.hex(&random, bytes: 16)
            resumeToken = configuration.sessionResumeWindow > .zero ? SignalingSession.hex(&random, bytes: 16) : ""
            party = CallRouter.Party(sessionId: sessionId, account: claims.sub, identity: identity, inbox: inbox)
            edge.resumptions.attach(sessionId: sessionId, token: resumeToken, events: inbox)
            await send(.welcome(.init(
                edge: configuration.edgeName, sessionId: sessionId, iceServers: session.iceServers(for: claims),
                resumeToken: resumeToken.isEmpty ? nil : resumeToken, features: [SignalingMessage.Welcome.candidatesFeature])))
            enter(.ready(claims))
            return .proceed
        } catch {
            await fail(error)
            return .end
        }
    }

    /// `register`: calls to the token's identity ring here from now on; the token must allow
    /// incoming calls (`grants.voice.incoming.allow`).
    mutating func register() async -> SignalingSession.Disposition {
        guard let claims = phase.claims, let party, claims.grants.voice?.incoming?.allow == true else {
            await fail(PreflightError(
                code: .invalidAccessTokenGrants, message: "register: the access token does not allow incoming calls (grants.voice.incoming.allow)"))
            return .end
        }
        if !registered {
            registered = true
            edge.calls.register(party)
            // A registered session waits for calls as long as it likes: the invite timer stops.
            if case .ready = phase { phaseNumber += 1 }
            logger.info("registered for incoming calls", metadata: ["identity": "\(UntrustedText.excerpt(party.identity))"])
        }
        await send(.registered(identity: party.identity))
        return .proceed
    }

    /// `invite`: a test application's call, or (the `dial` application) a call to the client or
    /// route its `To` names.
    mutating func placeCall(
        _ invite: SignalingMessage.Invite, claims: AccessTokenClaims, timers: inout TaskGroup<Void>
    ) async -> SignalingSession.Disposition {
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
                    try await ringClient(invite, to: to, identity: identity, configuration: dial, claims: claims, timers: &timers)
                    return .proceed
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
            let recording = application == .recordPlayback ? try Self.recordingInterval(invite.params) : nil
            let (callSid, ufrag, format) = try await session.answer(
                invite, application: application, claims: claims, recording: recording, send: { await send($0) })
            openLog(callSid: callSid, claims: claims, role: .caller)
            enter(.inCall(.init(
                callSid: callSid, ufrag: ufrag, application: application, role: .caller, answered: true,
                remoteUfrag: invite.ice.ufrag, format: format, srtp: nil, claims: claims)))
            if application == .recordPlayback {
                let inbox = inbox
                let session = session
                timers.addTask {
                    let (reason, code) = await session.recordAndPlayBack(ufrag: ufrag, recording: recording)
                    inbox.post(.applicationFinished(reason: reason, code: code))
                }
            }
            return .proceed
        } catch {
            await fail(error)
            return .end
        }
    }

    /// The record-playback application's `interval` parameter (Agora's echo test interval):
    /// whole seconds, 2 to 10; `nil` (the edge's default) when absent.
    static func recordingInterval(_ params: [String: String]) throws(PreflightError) -> Duration? {
        guard let text = params["interval"] else { return nil }
        guard text.count <= 2, let seconds = Int(text), (2...10).contains(seconds) else {
            throw PreflightError(
                code: .invalidArgument,
                message: "record-playback: interval must be 2 to 10 seconds, got \(UntrustedText.quoted(text))")
        }
        return .seconds(seconds)
    }

    /// The caller's side of a `dial` call to a client: ring its devices, then answer the caller
    /// at once (answerOnBridge false) or when the callee answers.
    mutating func ringClient(
        _ invite: SignalingMessage.Invite, to: String, identity: String, configuration dial: DialConfiguration,
        claims: AccessTokenClaims, timers: inout TaskGroup<Void>
    ) async throws(PreflightError) {
        guard let party else { return }
        let format = try session.validateOffer(ice: invite.ice, codecs: invite.codecs)
        let srtp = try invite.srtp?.material()
        var random = SystemRandomNumberGenerator()
        let callSid = "CA" + SignalingSession.hex(&random, bytes: 16)
        var params = invite.params
        params.removeValue(forKey: "To")
        try edge.calls.dial(
            callSid: callSid, from: party, identity: identity, to: to, params: params, format: format, at: edge.monotonicSeconds)
        openLog(callSid: callSid, claims: claims, role: .caller)
        await send(.ringing(callSid: callSid))
        var call = SignalingSession.ActiveCall(
            callSid: callSid, application: nil, role: .caller, remoteUfrag: invite.ice.ufrag, format: format, srtp: srtp,
            claims: claims)
        if !dial.answerOnBridge {
            let (ufrag, ice, key) = try openLeg(remoteUfrag: invite.ice.ufrag, srtp: srtp, format: format)
            call.ufrag = ufrag
            await send(.answer(.init(
                callSid: callSid, ice: ice, codec: format.name, payloadType: format.payloadType, application: "dial", srtp: key)))
            edge.calls.attachMedia(callSid: callSid, sessionId: sessionId, ufrag: ufrag)
        }
        enter(.inCall(call))
        let inbox = inbox
        timers.addTask {
            try? await Task.sleep(for: dial.ringTimeout)
            if !Task.isCancelled { inbox.post(.ringTimeout(callSid: callSid)) }
        }
        logger.info(
            "call ringing", metadata: ["callSid": "\(callSid)", "to": "\(UntrustedText.excerpt(to))", "answerOnBridge": "\(dial.answerOnBridge)"])
    }

    /// `accept` of a call ringing here: the first device to accept gets it; one that comes too
    /// late (cancelled, answered elsewhere, busy here) gets a `hangup` with 31000 and the session goes on.
    mutating func answerIncoming(_ accept: SignalingMessage.Accept) async -> SignalingSession.Disposition {
        let format: AudioPayloadFormat
        let srtp: SRTPKeyingMaterial?
        do throws(PreflightError) {
            try accept.ice.validate()
            srtp = try accept.srtp?.material()
        } catch {
            await fail(error, callSid: accept.callSid)
            return .end
        }
        do throws(PreflightError) {
            // Both legs carry the caller's codec: a device that cannot is turned away like one
            // that accepts too late, and the call rings on elsewhere.
            format = try SignalingSession.chooseCodec(accept.codecs, required: edge.calls.format(of: accept.callSid))
        } catch {
            if offered.remove(accept.callSid) != nil { edge.calls.reject(callSid: accept.callSid, by: sessionId) }
            await send(.hangup(.init(callSid: accept.callSid, reason: error.message, code: error.code.rawValue)))
            return .proceed
        }
        guard offered.remove(accept.callSid) != nil, case .ready(let claims) = phase, let party,
            edge.calls.accept(callSid: accept.callSid, by: party)
        else {
            edge.calls.reject(callSid: accept.callSid, by: sessionId)
            await send(.hangup(.init(
                callSid: accept.callSid, reason: "the call no longer rings here",
                code: PreflightError.Code.generalCallError.rawValue)))
            return .proceed
        }
        openLog(callSid: accept.callSid, claims: claims, role: .callee)
        let leg: (ufrag: String, ice: ICEParameters, srtp: SignalingMessage.SRTPKey?)
        do throws(PreflightError) {
            leg = try openLeg(remoteUfrag: accept.ice.ufrag, srtp: srtp, format: format)
        } catch {
            edge.calls.hangUp(callSid: accept.callSid, by: sessionId, reason: "the callee's media could not open", code: .connectionError)
            await fail(error, callSid: accept.callSid)
            return .end
        }
        await send(.answer(.init(
            callSid: accept.callSid, ice: leg.ice, codec: format.name, payloadType: format.payloadType, application: "dial", srtp: leg.srtp)))
        edge.calls.attachMedia(callSid: accept.callSid, sessionId: sessionId, ufrag: leg.ufrag)
        enter(.inCall(.init(
            callSid: accept.callSid, ufrag: leg.ufrag, application: nil, role: .callee, answered: true,
            remoteUfrag: accept.ice.ufrag, format: format, srtp: srtp, claims: claims)))
        logger.info("call answered", metadata: ["callSid": "\(accept.callSid)"])
        return .proceed
    }

    /// `insights`: a party's events of a call, kept for `GET /v1/calls/{sid}/events`. Events of a
    /// call this identity was no party of, or beyond the limits of one message, are refused (70002).
    /// Events over the call's cap, the session's rate or the call's are dropped and counted
    /// (``CallEventLog``); the session goes on.
    mutating func record(_ insights: SignalingMessage.Insights) async -> SignalingSession.Disposition {
        guard let claims = phase.claims else { return .end }
        guard insights.events.count <= SignalingMessage.Insights.maximumEvents, insights.events.allSatisfy(\.isWithinLimits) else {
            await fail(PreflightError(
                code: .malformed,
                message: "insights: at most \(SignalingMessage.Insights.maximumEvents) events a message, names up to \(InsightsEvent.maximumNameLength) bytes, \(InsightsEvent.maximumPayloadFields) payload fields of \(InsightsEvent.maximumValueLength) bytes"),
                callSid: insights.callSid)
            return .end
        }
        guard append(insights.events, callSid: insights.callSid, claims: claims) else {
            await fail(PreflightError(
                code: .malformed, message: "insights: \(UntrustedText.quoted(insights.callSid)) is not a call of this identity"),
                callSid: insights.callSid)
            return .end
        }
        return .proceed
    }

    /// `candidates`: host candidates of a network that appeared during this session's call. They
    /// are recorded in the call's events (`ice-candidate`, as the client's own candidates, with
    /// `"trickled": "true"`), under the same caps as `insights`; nothing is sent to them (the
    /// media path moves only on a check that authenticates from it). Refused (70002) when they
    /// are not this session's current call's, too many, or not valid candidates; the session
    /// goes on.
    mutating func record(_ candidates: SignalingMessage.Candidates) async {
        guard let claims = phase.claims, case .inCall(let call) = phase, call.callSid == candidates.callSid, !call.isProbe else {
            return await fail(
                PreflightError(
                    code: .malformed, message: "candidates: \(UntrustedText.quoted(candidates.callSid)) is not this session's call"),
                callSid: candidates.callSid)
        }
        do throws(PreflightError) {
            try candidates.validate()
        } catch {
            return await fail(error, callSid: candidates.callSid)
        }
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        let events = candidates.candidates.map { candidate in
            InsightsEvent(.iceCandidate, "ice-candidate", timestamp: now, payload: [
                "candidateType": candidate.type.rawValue, "protocol": candidate.transport.lowercased(), "ip": candidate.address,
                "port": "\(candidate.port)", "priority": "\(candidate.priority)", "isRemote": "false", "trickled": "true",
            ])
        }
        _ = append(events, callSid: candidates.callSid, claims: claims)
    }

    /// Appends a party's events to the call's log and the store (what the caps keep).
    /// - Returns: false when the call is not one of this identity.
    mutating func append(_ events: [InsightsEvent], callSid: String, claims: AccessTokenClaims) -> Bool {
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        guard let kept = edge.callEvents.append(
            events, callSid: callSid, account: claims.sub, identity: claims.grants.identity ?? "", receivedAt: now,
            session: &insightsBucket, now: edge.monotonicSeconds)
        else { return false }
        edge.storeWriter.enqueue(.init(
            callSid: callSid, account: claims.sub,
            events: kept.map {
                StoredCallEvent(
                    party: $0.party, event: $0.event, receivedAt: $0.receivedAt, edge: edge.configuration.edgeName,
                    identity: claims.grants.identity ?? "")
            }))
        return true
    }

    /// `message`: a user-defined message for the other party of this session's call; the sender
    /// learns whether it went (`messageStatus`). Refused, and the session goes on: an `id` over
    /// 256 bytes (70002, the status carrying its first 256 bytes), a type other than
    /// `user-defined-message` (31210), content over 10 KB (31209), more than 10 in a minute
    /// (70107), no connected call between clients with that sid (31211).
    mutating func relay(_ message: SignalingMessage.Message) async {
        func refuse(_ code: PreflightError.Code, _ reason: String) async {
            await send(.messageStatus(.init(callSid: message.callSid, id: message.id, code: code.rawValue, reason: reason)))
        }
        let now = ContinuousClock.now
        messageTimes.removeAll { now - $0 > .seconds(CallMessage.rateWindow) }
        guard message.id.utf8.count <= SignalingMessage.Message.maximumIdLength else {
            let reason = "call message: the id is over \(SignalingMessage.Message.maximumIdLength) bytes"
            return await send(.messageStatus(.init(
                callSid: message.callSid, id: Self.prefix(message.id, bytes: SignalingMessage.Message.maximumIdLength),
                code: PreflightError.Code.malformed.rawValue, reason: reason)))
        }
        guard message.message.messageType == "user-defined-message" else {
            return await refuse(.callMessageTypeInvalid, "call message: the type must be user-defined-message")
        }
        guard message.message.content.utf8.count <= CallMessage.maximumContentLength else {
            return await refuse(.callMessageTooLarge, "call message: content over \(CallMessage.maximumContentLength) bytes")
        }
        guard messageTimes.count < CallMessage.maximumPerWindow else {
            return await refuse(.callMessageRateLimited, "call message: more than \(CallMessage.maximumPerWindow) in a minute")
        }
        guard case .inCall(let call) = phase, call.callSid == message.callSid, call.application == nil,
            edge.calls.forward(message, from: sessionId)
        else {
            return await refuse(.callMessageUnexpectedState, "call message: no connected call between clients with this sid")
        }
        messageTimes.append(now)
        await send(.messageStatus(.init(callSid: message.callSid, id: message.id)))
    }

    /// The longest start of `text` within `bytes` bytes of UTF-8, cut between characters' scalars.
    static func prefix(_ text: String, bytes: Int) -> String {
        var result = String.UnicodeScalarView()
        var length = 0
        for scalar in text.unicodeScalars {
            length += UTF8.width(scalar)
            guard length <= bytes else { break }
            result.append(scalar)
        }
        return String(result)
    }

    /// Starts the Insights log of a call this session takes part in.
    func openLog(callSid: String, claims: AccessTokenClaims, role: CallRole) {
        edge.callEvents.open(callSid: callSid, account: claims.sub, identity: claims.grants.identity ?? "", role: role)
    }

    /// Opens a bridge leg for the client's ICE ufrag, encrypted when the client offered a key
    /// (the edge then makes its own for this leg): the edge's ICE parameters and SRTP key.
    func openLeg(remoteUfrag: String, srtp offered: SRTPKeyingMaterial?, format: AudioPayloadFormat) throws(PreflightError) -> (
        ufrag: String, ice: ICEParameters, srtp: SignalingMessage.SRTPKey?
    ) {
        let sending = offered.map { _ in SRTPKeyingMaterial.random() }
        let keys = offered.flatMap { receive in sending.map { (receive: receive, send: $0) } }
        let (ufrag, ice) = try session.openMedia(remoteUfrag: remoteUfrag, application: nil, srtp: keys, format: format)
        return (ufrag, ice, sending.map(SignalingMessage.SRTPKey.init))
    }
}

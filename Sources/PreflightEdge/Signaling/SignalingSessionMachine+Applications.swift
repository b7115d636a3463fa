import Logging
import PreflightCore

// The edge's own applications: the test applications' calls, the last-mile probe and the
// connectivity check.
extension SignalingSessionMachine {
    /// Answers a test application's call: opens its media session, sends ringing and the answer.
    mutating func answer(
        _ invite: SignalingMessage.Invite, application: TestApplication, claims: AccessTokenClaims, now: Double
    ) throws(PreflightError) {
        let recording = application == .recordPlayback ? try Self.recordingInterval(invite.params) : nil
        try invite.ice.validate()
        let format = try Self.chooseCodec(invite.codecs)
        let callSid = "CA" + environment.randomHex(16)
        let (credentials, ice) = makeCredentials(remoteUfrag: invite.ice.ufrag)
        let duration = recording ?? configuration.recordingDuration
        let ufrag = credentials.localUfrag
        let notices = environment.notices
        environment.media.addSession(
            credentials, application: application, recordingFrames: Int((duration / .milliseconds(20)).rounded(.up)), format: format,
            onRecording: { notices.deliver(.recording(ufrag: ufrag, $0)) })
        outputs.append(.send(.ringing(callSid: callSid)))
        outputs.append(.send(.answer(.init(
            callSid: callSid, ice: ice, codec: format.name, payloadType: format.payloadType, application: application.rawValue))))
        logger.info(
            "call answered",
            metadata: [
                "callSid": "\(callSid)", "application": "\(application.rawValue)",
                "identity": "\(UntrustedText.excerpt(claims.grants.identity ?? ""))",
            ])
        openLog(callSid: callSid, claims: claims, role: .caller)
        var call = ActiveCall(
            callSid: callSid, ufrag: ufrag, application: application, role: .caller, answered: true,
            remoteUfrag: invite.ice.ufrag, format: format, srtp: nil, claims: claims)
        if application == .recordPlayback {
            call.recording = .awaitingMedia(until: now + configuration.recordingStartTimeout.inSeconds, duration: duration.inSeconds)
        }
        enter(.inCall(call), now: now)
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

    /// What the media service said about this session's media.
    mutating func handle(_ notice: SessionMediaNotice, now: Double) {
        guard case .inCall(var call) = phase, let stage = call.recording else { return }
        switch notice {
        case .recording(let ufrag, let progress) where ufrag == call.ufrag:
            if progress.contains(.started), case .awaitingMedia(_, let duration) = stage {
                call.recording = .recording(until: now + duration)
            }
            phase = .inCall(call)
            if progress.contains(.full), case .recording = call.recording { startPlayback(call) }
        case .playbackFinished(let ufrag) where ufrag == call.ufrag:
            guard case .playing = stage else { return }
            call.recording = .pausing(until: now + configuration.playbackPause.inSeconds)
            phase = .inCall(call)
        case .recording, .playbackFinished:
            break
        }
    }

    /// A record-playback step's time ran out.
    mutating func advanceRecording(_ call: ActiveCall, now: Double) {
        switch call.recording {
        case .awaitingMedia?:
            outputs.append(.send(.hangup(.init(
                callSid: call.callSid, reason: "no audio to record within \(configuration.recordingStartTimeout)",
                code: PreflightError.Code.connectionError.rawValue))))
            end()
        case .recording?:
            startPlayback(call)
        case .pausing?:
            outputs.append(.send(.hangup(.init(callSid: call.callSid, reason: "completed", code: nil))))
            end()
        case .playing?, nil:
            break
        }
    }

    private mutating func startPlayback(_ call: ActiveCall) {
        guard let ufrag = call.ufrag else { return }
        var call = call
        call.recording = .playing
        phase = .inCall(call)
        outputs.append(.playRecording(ufrag: ufrag))
    }

    /// `probe`: opens a probe media session (pings echoed, uplink probe packets recorded, downlink
    /// trains sent on request) and answers with its ICE parameters. Any valid token may probe:
    /// the probe's own rate and byte limits bound what it costs (docs/security.md).
    mutating func startProbe(_ probe: SignalingMessage.Probe, claims: AccessTokenClaims, now: Double) {
        do throws(PreflightError) {
            try LastmileProbeConfig(
                probeUplink: probe.expectedUplinkBitrate != nil, probeDownlink: probe.expectedDownlinkBitrate != nil,
                expectedUplinkBitrate: probe.expectedUplinkBitrate ?? 0, expectedDownlinkBitrate: probe.expectedDownlinkBitrate ?? 0
            ).validate()
            try probe.ice.validate()
        } catch {
            fail(error)
            return end()
        }
        let callSid = "PB" + environment.randomHex(16)
        let (credentials, ice) = makeCredentials(remoteUfrag: probe.ice.ufrag)
        environment.media.addProbeSession(
            credentials, clientPassword: probe.ice.pwd, expectedUplinkBitrate: probe.expectedUplinkBitrate,
            expectedDownlinkBitrate: probe.expectedDownlinkBitrate)
        let format = AudioPayloadFormat.pcmu
        outputs.append(.send(.answer(.init(callSid: callSid, ice: ice, codec: format.name, payloadType: format.payloadType, application: "probe"))))
        var call = ActiveCall(
            callSid: callSid, ufrag: credentials.localUfrag, application: .echo, role: .caller, answered: true,
            remoteUfrag: probe.ice.ufrag, format: format, srtp: nil, claims: claims)
        call.isProbe = true
        call.probeFlushAt = now + Self.probeFlushInterval
        enter(.inCall(call), now: now)
        if probe.expectedDownlinkBitrate != nil { outputs.append(.runProbeDownlink(ufrag: credentials.localUfrag)) }
        logger.info(
            "probe started",
            metadata: [
                "callSid": "\(callSid)", "expectedUplink": "\(probe.expectedUplinkBitrate.map(String.init) ?? "-")",
                "expectedDownlink": "\(probe.expectedDownlinkBitrate.map(String.init) ?? "-")",
                "identity": "\(UntrustedText.excerpt(claims.grants.identity ?? ""))",
            ])
    }

    /// `probeTrain`: the downlink train the client asks for; one the probe's limits refuse ends
    /// the session (70302).
    mutating func runTrain(_ train: SignalingMessage.ProbeTrain, call: ActiveCall) {
        guard let ufrag = call.ufrag else { return }
        do throws(PreflightError) {
            try environment.media.startProbeTrain(localUfrag: ufrag, train)
        } catch {
            fail(error, callSid: call.callSid)
            end()
        }
    }

    /// `connectivityCheck`: opens the check's publish and subscribe legs and answers with both
    /// legs' ICE parameters (`ice` the publish leg's, `subscribeIce` the subscribe leg's). Any
    /// valid token may run a check, as any may probe: what the check costs is bounded by what
    /// its client sends (the publish address's budget) and by the test duration.
    mutating func startCheck(_ check: SignalingMessage.ConnectivityCheck, claims: AccessTokenClaims, now: Double) {
        let format: AudioPayloadFormat
        do throws(PreflightError) {
            try check.publish.validate()
            format = try Self.chooseCodec(check.codecs)
            try check.subscribe.validate()
            guard check.publish.ufrag != check.subscribe.ufrag else {
                throw PreflightError(code: .malformed, message: "connectivity check: the publish and subscribe connections share a ufrag")
            }
        } catch {
            fail(error)
            return end()
        }
        let callSid = "CC" + environment.randomHex(16)
        let (publish, publishICE) = makeCredentials(remoteUfrag: check.publish.ufrag)
        let (subscribe, subscribeICE) = makeCredentials(remoteUfrag: check.subscribe.ufrag)
        environment.media.addCheckLegs(publish: publish, subscribe: subscribe, format: format)
        outputs.append(.send(.answer(.init(
            callSid: callSid, ice: publishICE, codec: format.name, payloadType: format.payloadType, application: "connectivity-check",
            subscribeIce: subscribeICE))))
        var call = ActiveCall(
            callSid: callSid, ufrag: publish.localUfrag, application: .echo, role: .caller, answered: true,
            remoteUfrag: check.publish.ufrag, format: format, srtp: nil, claims: claims)
        call.subscribeUfrag = subscribe.localUfrag
        enter(.inCall(call), now: now)
        logger.info(
            "connectivity check started",
            metadata: [
                "callSid": "\(callSid)", "codec": "\(format.name)", "identity": "\(UntrustedText.excerpt(claims.grants.identity ?? ""))",
            ])
    }
}

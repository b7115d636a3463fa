import Foundation
import Logging
import PreflightCore

extension SignalingSession {
    /// The codec of an offer (`invite`, `accept`), once its ICE parameters are valid
    /// (``chooseCodec(_:required:)``).
    /// - Throws: 70002 for invalid ICE parameters, 70103 when no offered codec fits.
    func validateOffer(
        ice: ICEParameters, codecs: [String], required: AudioPayloadFormat? = nil
    ) throws(PreflightError) -> AudioPayloadFormat {
        try ice.validate()
        return try Self.chooseCodec(codecs, required: required)
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

    /// Opens a media session for a client's ICE ufrag: a test application's, or (`nil`) a leg of
    /// a bridged call. Returns the edge's side: ICE-lite credentials and its host candidate.
    /// - Parameter srtp: a bridge leg's keys when it is encrypted (the client's, the edge's).
    /// - Parameter probe: a last-mile probe's request: the session is a probe session.
    /// - Parameter recording: how long a record-playback session records.
    func openMedia(
        remoteUfrag: String, application: TestApplication?, srtp: (receive: SRTPKeyingMaterial, send: SRTPKeyingMaterial)? = nil,
        probe: SignalingMessage.Probe? = nil, recording: Duration? = nil, format: AudioPayloadFormat = .pcmu
    ) throws(PreflightError) -> (ufrag: String, ice: ICEParameters) {
        let (ufrag, password) = ICEParameters.randomCredentials()
        let credentials = ICELiteCredentials(localUfrag: ufrag, localPassword: password, remoteUfrag: remoteUfrag)
        if let probe {
            edge.media.addProbeSession(
                credentials, clientPassword: probe.ice.pwd, expectedUplinkBitrate: probe.expectedUplinkBitrate, expectedDownlinkBitrate: probe.expectedDownlinkBitrate)
        } else if let application {
            edge.media.addSession(
                credentials, application: application,
                recordingFrames: Int(((recording ?? edge.configuration.recordingDuration) / .milliseconds(20)).rounded(.up)),
                format: format)
        } else {
            try edge.media.addBridgeLeg(credentials, srtp: srtp, format: format)
        }
        return (ufrag, ICEParameters(ufrag: ufrag, pwd: password, candidates: [hostCandidate], lite: true))
    }

    /// The edge's one candidate for every media session: its advertised address and media port.
    var hostCandidate: ICECandidate {
        ICECandidate(
            foundation: "1", priority: ICECandidate.priority(typePreference: 126, localPreference: 65535, component: 1),
            address: advertisedAddress, port: UInt16(clamping: edge.configuration.advertisedMediaPort ?? mediaPort), type: .host)
    }

    /// Opens a connectivity check's two legs for the client's publish and subscribe ufrags.
    /// Returns the edge's side of each: local ufrag and ICE parameters (one host candidate, the
    /// media port, as every session's).
    func openCheckLegs(publishUfrag: String, subscribeUfrag: String, format: AudioPayloadFormat) -> (
        publish: (ufrag: String, ice: ICEParameters), subscribe: (ufrag: String, ice: ICEParameters)
    ) {
        func credentials(_ remote: String) -> (ICELiteCredentials, ICEParameters) {
            let (ufrag, password) = ICEParameters.randomCredentials()
            return (
                ICELiteCredentials(localUfrag: ufrag, localPassword: password, remoteUfrag: remote),
                ICEParameters(ufrag: ufrag, pwd: password, candidates: [hostCandidate], lite: true)
            )
        }
        let (publish, publishICE) = credentials(publishUfrag)
        let (subscribe, subscribeICE) = credentials(subscribeUfrag)
        edge.media.addCheckLegs(publish: publish, subscribe: subscribe, format: format)
        return ((publish.localUfrag, publishICE), (subscribe.localUfrag, subscribeICE))
    }

    /// Answers a test application's call: opens its media session, sends ringing and the answer.
    /// - Parameter recording: how long record-playback records (the invite's `interval`), or
    ///   `nil` for the edge's `recordingDuration`.
    func answer(
        _ invite: SignalingMessage.Invite, application: TestApplication, claims: AccessTokenClaims, recording: Duration? = nil,
        send: (SignalingMessage) async -> Void
    ) async throws(PreflightError) -> (callSid: String, ufrag: String, format: AudioPayloadFormat) {
        let format = try validateOffer(ice: invite.ice, codecs: invite.codecs)
        var random = SystemRandomNumberGenerator()
        let callSid = "CA" + Self.hex(&random, bytes: 16)
        let (ufrag, ice) = try openMedia(remoteUfrag: invite.ice.ufrag, application: application, recording: recording, format: format)
        await send(.ringing(callSid: callSid))
        await send(.answer(.init(
            callSid: callSid, ice: ice, codec: format.name, payloadType: format.payloadType, application: application.rawValue)))
        logger.info(
            "call answered",
            metadata: [
                "callSid": "\(callSid)", "application": "\(application.rawValue)",
                "identity": "\(UntrustedText.excerpt(claims.grants.identity ?? ""))",
            ])
        return (callSid, ufrag, format)
    }

    /// The record-playback flow: wait for the caller's audio, record it for `recording` (the
    /// edge's `recordingDuration` when `nil`), play it back, pause.
    func recordAndPlayBack(ufrag: String, recording: Duration? = nil) async -> (reason: String, code: PreflightError.Code?) {
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
        let duration = recording ?? configuration.recordingDuration
        let frames = Int((duration / .milliseconds(20)).rounded(.up))
        let recordUntil = (firstMedia ?? media.now) + duration.inSeconds
        while media.now < recordUntil, (media.statistics(localUfrag: ufrag)?.recordedFrames ?? 0) < min(frames, configuration.media.maximumRecordingFrames) {
            guard (try? await Task.sleep(for: .milliseconds(20))) != nil else { return ("cancelled", nil) }
        }
        let played = await media.playRecording(localUfrag: ufrag)
        logger.debug("playback done", metadata: ["frames": "\(played)"])
        try? await Task.sleep(for: configuration.playbackPause)
        return ("completed", nil)
    }

    /// The address the edge's media candidate and STUN URL advertise.
    var advertisedAddress: String { edge.advertisedAddress }

    /// The ICE servers of a welcome (``EdgeServer/iceServers(for:mediaPort:)``).
    func iceServers(for claims: AccessTokenClaims) -> [ICEServer] {
        edge.iceServers(for: claims, mediaPort: mediaPort)
    }
}

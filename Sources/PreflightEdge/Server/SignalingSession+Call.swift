import Foundation
import Logging
import PreflightCore

extension SignalingSession {
    /// Routes an invite: picks the application and codec, opens the media session and answers.
    func answer(
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
    func recordAndPlayBack(ufrag: String) async -> (reason: String, code: PreflightError.Code?) {
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
}

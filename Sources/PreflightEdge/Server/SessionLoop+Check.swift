import Logging
import PreflightCore

extension SessionLoop {
    /// `connectivityCheck`: opens the check's publish and subscribe legs and answers with both
    /// legs' ICE parameters (`ice` the publish leg's, `subscribeIce` the subscribe leg's). Any
    /// valid token may run a check, as any may probe: what the check costs is bounded by what
    /// its client sends (the publish address's budget) and by the test duration.
    mutating func startCheck(
        _ check: SignalingMessage.ConnectivityCheck, claims: AccessTokenClaims, timers: inout TaskGroup<Void>
    ) async -> SignalingSession.Disposition {
        do throws(PreflightError) {
            let format = try session.validateOffer(ice: check.publish, codecs: check.codecs)
            try check.subscribe.validate()
            guard check.publish.ufrag != check.subscribe.ufrag else {
                throw PreflightError(code: .malformed, message: "connectivity check: the publish and subscribe connections share a ufrag")
            }
            var random = SystemRandomNumberGenerator()
            let callSid = "CC" + SignalingSession.hex(&random, bytes: 16)
            let (publish, subscribe) = session.openCheckLegs(
                publishUfrag: check.publish.ufrag, subscribeUfrag: check.subscribe.ufrag, format: format)
            await send(.answer(.init(
                callSid: callSid, ice: publish.ice, codec: format.name, payloadType: format.payloadType, application: "connectivity-check",
                subscribeIce: subscribe.ice)))
            var call = SignalingSession.ActiveCall(
                callSid: callSid, ufrag: publish.ufrag, application: .echo, role: .caller, answered: true,
                remoteUfrag: check.publish.ufrag, format: format, srtp: nil, claims: claims)
            call.subscribeUfrag = subscribe.ufrag
            enter(.inCall(call))
            logger.info(
                "connectivity check started",
                metadata: [
                    "callSid": "\(callSid)", "codec": "\(format.name)", "identity": "\(UntrustedText.excerpt(claims.grants.identity ?? ""))",
                ])
            return .proceed
        } catch {
            await fail(error)
            return .end
        }
    }
}

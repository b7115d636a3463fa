import Logging
import PreflightCore

extension SessionLoop {
    /// `probe`: opens a probe media session (pings echoed, uplink probe packets recorded, downlink
    /// trains sent on request) and answers with its ICE parameters. Any valid token may probe:
    /// the probe's own rate and byte limits bound what it costs (docs/security.md).
    mutating func startProbe(
        _ probe: SignalingMessage.Probe, claims: AccessTokenClaims, timers: inout TaskGroup<Void>
    ) async -> SignalingSession.Disposition {
        do throws(PreflightError) {
            try LastmileProbeConfig(
                probeUplink: probe.expectedUplinkBitrate != nil, probeDownlink: probe.expectedDownlinkBitrate != nil,
                expectedUplinkBitrate: probe.expectedUplinkBitrate ?? 0, expectedDownlinkBitrate: probe.expectedDownlinkBitrate ?? 0
            ).validate()
            try probe.ice.validate()
            var random = SystemRandomNumberGenerator()
            let callSid = "PB" + SignalingSession.hex(&random, bytes: 16)
            let (ufrag, ice) = try session.openMedia(remoteUfrag: probe.ice.ufrag, application: .echo, probe: probe)
            let format = AudioPayloadFormat.pcmu
            await send(.answer(.init(callSid: callSid, ice: ice, codec: format.name, payloadType: format.payloadType, application: "probe")))
            var call = SignalingSession.ActiveCall(
                callSid: callSid, ufrag: ufrag, application: .echo, role: .caller, answered: true, remoteUfrag: probe.ice.ufrag,
                format: format, srtp: nil, claims: claims)
            call.isProbe = true
            enter(.inCall(call))
            let inbox = inbox
            timers.addTask {
                while (try? await Task.sleep(for: .milliseconds(100))) != nil {
                    inbox.post(.probeFlush(callSid: callSid))
                }
            }
            if probe.expectedDownlinkBitrate != nil {
                let media = edge.media
                timers.addTask { _ = await media.runProbeDownlink(localUfrag: ufrag) }
            }
            logger.info(
                "probe started",
                metadata: [
                    "callSid": "\(callSid)", "expectedUplink": "\(probe.expectedUplinkBitrate.map(String.init) ?? "-")",
                    "expectedDownlink": "\(probe.expectedDownlinkBitrate.map(String.init) ?? "-")",
                    "identity": "\(UntrustedText.excerpt(claims.grants.identity ?? ""))",
                ])
            return .proceed
        } catch {
            await fail(error)
            return .end
        }
    }

    /// `probeTrain`: the downlink train the client asks for; one the probe's limits refuse ends
    /// the session (70302).
    func runTrain(_ train: SignalingMessage.ProbeTrain, call: SignalingSession.ActiveCall) async -> SignalingSession.Disposition {
        guard let ufrag = call.ufrag else { return .proceed }
        do throws(PreflightError) {
            try edge.media.startProbeTrain(localUfrag: ufrag, train)
            return .proceed
        } catch {
            await fail(error, callSid: call.callSid)
            return .end
        }
    }

    /// Sends the uplink arrival records gathered since the last flush.
    func flushProbe(_ call: SignalingSession.ActiveCall) async {
        guard let ufrag = call.ufrag, let batch = edge.media.takeProbeArrivals(localUfrag: ufrag) else { return }
        await send(.probeArrivals(batch))
    }
}

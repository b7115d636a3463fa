import Foundation
import Synchronization
import Logging
import PreflightModel
internal import PreflightCore
internal import PreflightNIO

extension CallRun {
    /// Places `call`: signs in on its own signaling connection (which resumes itself when lost),
    /// gathers, invites, and runs the call until it ends.
    static func place(_ call: Call, options: ConnectOptions, stream: AsyncStream<Input>, inputs: AsyncStream<Input>.Continuation) async {
        // Also on the paths that never reach `finish()`.
        defer { call.teardown.finish() }
        let startTime = nowMilliseconds()
        let origin = ContinuousClock.now
        let ice: ICEAgentDriver
        let media: MediaSession
        let codecs: [String]
        do {
            (ice, media, codecs) = try await makeMedia(
                options: options.callOptions, edgeURL: options.edgeURL, startTime: startTime, origin: origin,
                logger: call.logger, audio: call.audio, inputs: inputs)
        } catch {
            call.apply(.failed(error))
            inputs.finish()
            return
        }
        let configuration = SignalingClientConfiguration(
            url: options.edgeURL, accessToken: options.accessToken, trustedCertificatesFile: options.edgeTrustedCertificatesFile,
            timeout: options.signalingTimeout, resumesSession: true,
            // A call lives as long as its media may come back: its signaling, lost with the
            // same network, gives up only after the consent timeout would have ended the call
            // (53405, the error a call that lost its network ends with).
            resumeTimeout: max(options.signalingResumeTimeout, options.callOptions.consentTimeout + .seconds(1)))
        let signaling = SignalingClient(configuration: configuration, logger: call.logger)
        let logger = call.logger
        call.handle.withLock { state in
            state.poster = { callSid, events in
                // The call's own session is gone: a short one of its own, with the same token.
                let client = SignalingClient(configuration: configuration, logger: logger)
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await client.run() }
                    if (try? await client.connect()) != nil {
                        try? await client.send(.insights(.init(callSid: callSid, events: events)))
                    }
                    await client.close()
                    group.cancelAll()
                }
            }
        }
        await withTaskGroup(of: Void.self) { group in
            group.startSessionLayer(signaling: signaling, ice: [ice], inputs: inputs, wrap: { .session($0) })
            group.followNetworks(options.callOptions.networkSource, drivers: [ice], logger: logger, inputs: inputs, wrap: { .session($0) })
            call.handle.withLock { $0.media = media }
            var run = CallRun(
                call: call, signaling: signaling, ice: ice, media: media, audio: call.audio, inputs: inputs,
                options: options.callOptions, params: options.params, offeredCodecs: codecs, startTime: startTime)
            run.networks = RunNetworks(edgeOnLoopback: HostInterfaces.isLoopback(url: options.edgeURL))
            await run.loop(stream, group: &group)
            await run.finish()
            // The edge was told: the call's result is in (the connection closes meanwhile).
            call.teardown.finish()
            await signaling.close()
            inputs.finish()
            group.cancelAll()
        }
    }

    /// Answers `invite` on its registration's signaling: gathers, accepts, and runs the call
    /// until it ends. The registration routes the call's messages to `inputs`.
    static func answer(
        _ call: Call, invite: CallInvite, registration: Registration, options: AcceptOptions, stream: AsyncStream<Input>,
        inputs: AsyncStream<Input>.Continuation
    ) async {
        // Also on the paths that never reach `finish()`.
        defer { call.teardown.finish() }
        let startTime = nowMilliseconds()
        let origin = ContinuousClock.now
        let ice: ICEAgentDriver
        let media: MediaSession
        let codecs: [String]
        do {
            (ice, media, codecs) = try await makeMedia(
                options: options.callOptions, edgeURL: registration.signaling.configuration.url, startTime: startTime,
                origin: origin, logger: call.logger, audio: call.audio, inputs: inputs)
        } catch {
            call.apply(.failed(error))
            try? await registration.signaling.send(.reject(callSid: invite.callSid))
            inputs.finish()
            return
        }
        registration.route(callSid: invite.callSid, to: inputs)
        let signaling = registration.signaling
        call.handle.withLock { state in
            state.poster = { callSid, events in try? await signaling.send(.insights(.init(callSid: callSid, events: events))) }
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await ice.run() }
            group.followNetworks(options.callOptions.networkSource, drivers: [ice], logger: call.logger, inputs: inputs, wrap: { .session($0) })
            call.handle.withLock { $0.media = media }
            var run = CallRun(
                call: call, signaling: registration.signaling, ice: ice, media: media, audio: call.audio,
                inputs: inputs, options: options.callOptions, params: [:], offeredCodecs: codecs, startTime: startTime)
            run.callSid = invite.callSid
            run.edgeTakesCandidates = registration.welcome.offers(SignalingMessage.Welcome.candidatesFeature)
            ice.gather(servers: registration.welcome.iceServers + options.callOptions.iceServers)
            await run.loop(stream, group: &group)
            await run.finish()
            call.teardown.finish()
            registration.unroute(callSid: invite.callSid)
            inputs.finish()
            group.cancelAll()
        }
    }
}

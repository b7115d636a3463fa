import Foundation
import Logging
import PreflightCore
import Synchronization

extension SessionLoop {
    /// Handles one event; `.end` ends the session.
    mutating func handle(_ event: Event, timers: inout TaskGroup<Void>) async -> SignalingSession.Disposition {
        switch (event, phase) {
        case (.closed, .awaitingHello), (.closed, .ready):
            // Nothing to resume outside a call: the client signs in (and registers) again.
            return .end
        case (.closed(let protocolError), .inCall):
            return await park(protocolError: protocolError)
        case (.takenOver(let token), .inCall) where token == resumeToken:
            // What the old connection still sends goes nowhere: the new one feeds the session.
            (attachment?.reader ?? reader).target.withLock { $0 = SessionInbox.detached }
            return await park(protocolError: false)
        case (.takenOver, _):
            // Outside a call nothing is resumed: the new connection is refused.
            return .proceed
        case (.message(.resume(let request)), .awaitingHello):
            return await resumeOther(request)
        case (.malformed(let error), _):
            await fail(error, callSid: phase.callSid)
            return .end
        case (.timeout(let number), _) where number != phaseNumber:
            return .proceed
        case (.timeout, .awaitingHello), (.timeout, .ready):
            await fail(PreflightError(
                code: .signalingTimeout,
                message: "signaling: no \(phase.awaited) within \(configuration.signalingTimeout)"))
            return .end
        case (.timeout, .inCall(let call)) where call.application != nil:
            await send(.hangup(.init(
                callSid: call.callSid, reason: "maximum test duration of \(configuration.maximumTestDuration) reached",
                code: PreflightError.Code.testDurationExceeded.rawValue)))
            return .end
        case (.timeout, .inCall(let call)):
            let reason = "maximum call duration of \(configuration.maximumCallDuration) reached"
            await send(.hangup(.init(callSid: call.callSid, reason: reason, code: PreflightError.Code.callDurationExceeded.rawValue)))
            edge.calls.hangUp(callSid: call.callSid, by: sessionId, reason: reason, code: .callDurationExceeded)
            closeCall(call, timers: &timers)
            return .proceed
        case (.message(.hello(let token, _)), .awaitingHello):
            return await hello(token: token)
        case (.message(.probe(let probe)), .ready(let claims)):
            return await startProbe(probe, claims: claims, timers: &timers)
        case (.message(.connectivityCheck(let check)), .ready(let claims)):
            return await startCheck(check, claims: claims, timers: &timers)
        case (.message(.probeTrain(let train)), .inCall(let call)) where call.isProbe:
            return await runTrain(train, call: call)
        case (.probeFlush(let callSid), .inCall(let call)) where call.callSid == callSid:
            await flushProbe(call)
            return .proceed
        case (.probeFlush, _):
            return .proceed
        case (.message(.register), .ready), (.message(.register), .inCall):
            return await register()
        case (.message(.invite(let invite)), .ready(let claims)):
            return await placeCall(invite, claims: claims, timers: &timers)
        case (.message(.accept(let accept)), _) where party != nil:
            return await answerIncoming(accept)
        case (.message(.reject(let callSid)), _) where party != nil:
            if offered.remove(callSid) != nil { edge.calls.reject(callSid: callSid, by: sessionId) }
            return .proceed
        case (.message(.message(let message)), _) where phase.claims != nil:
            await relay(message)
            return .proceed
        case (.message(.insights(let insights)), _) where phase.claims != nil:
            return await record(insights)
        case (.message(.candidates(let candidates)), _) where phase.claims != nil:
            await record(candidates)
            return .proceed
        case (.applicationFinished(let reason, let code), .inCall(let call)):
            await send(.hangup(.init(callSid: call.callSid, reason: reason, code: code?.rawValue)))
            return .end
        case (.message(.hangup), .inCall(let call)) where call.application != nil:
            return .end
        case (.message(.hangup(let hangup)), .inCall(let call)) where hangup.callSid == call.callSid:
            edge.calls.hangUp(callSid: call.callSid, by: sessionId, reason: hangup.reason ?? "hung up", code: nil)
            closeCall(call, timers: &timers)
            return .proceed
        case (.message(.hangup(let hangup)), _) where party != nil:
            // A call that already ended here (the edge's own hangup crossed the client's), or a
            // hangup of a call still ringing here: a rejection.
            if offered.remove(hangup.callSid) != nil { edge.calls.reject(callSid: hangup.callSid, by: sessionId) }
            return .proceed
        case (.call(let notice), _):
            await handle(notice, timers: &timers)
            return .proceed
        case (.ringTimeout(let callSid), .inCall(let call)) where call.callSid == callSid && !call.answered:
            if edge.calls.ringTimedOut(callSid: callSid) {
                await send(.hangup(.init(
                    callSid: callSid, reason: "no answer", code: PreflightError.Code.calleeUnavailable.rawValue)))
                closeCall(call, timers: &timers)
            }
            return .proceed
        case (.message(let message), _):
            await fail(PreflightError(
                code: .malformed, message: "signaling: unexpected \"\(message.type)\" while waiting for \(phase.awaited)"),
                callSid: phase.callSid)
            return .end
        case (.mediaLingered(let ufrag), _):
            if lingering.remove(ufrag) != nil { edge.media.removeSession(localUfrag: ufrag) }
            return .proceed
        case (.applicationFinished, _), (.ringTimeout, _):
            return .proceed
        }
    }

    /// What the other party of a call did, or a call ringing here.
    mutating func handle(_ notice: CallRouter.Notice, timers: inout TaskGroup<Void>) async {
        switch notice {
        case .incoming(let incoming):
            guard registered else {
                edge.calls.reject(callSid: incoming.callSid, by: sessionId)
                return
            }
            offered.insert(incoming.callSid)
            await send(.incoming(incoming))
        case .cancelled(let cancel):
            if offered.remove(cancel.callSid) != nil { await send(.cancel(cancel)) }
        case .answered(let callSid):
            guard case .inCall(var call) = phase, call.callSid == callSid, call.role == .caller, !call.answered else { return }
            call.answered = true
            if call.ufrag == nil {
                // answerOnBridge: the caller's media opens only now.
                guard let leg = try? openLeg(remoteUfrag: call.remoteUfrag, srtp: call.srtp, format: call.format) else {
                    let reason = "the caller's media could not open"
                    await send(.hangup(.init(callSid: callSid, reason: reason, code: PreflightError.Code.connectionError.rawValue)))
                    edge.calls.hangUp(callSid: callSid, by: sessionId, reason: reason, code: .connectionError)
                    closeCall(call, timers: &timers)
                    return
                }
                call.ufrag = leg.ufrag
                await send(.answer(.init(
                    callSid: callSid, ice: leg.ice, codec: call.format.name, payloadType: call.format.payloadType, application: "dial",
                    srtp: leg.srtp)))
                edge.calls.attachMedia(callSid: callSid, sessionId: sessionId, ufrag: leg.ufrag)
            }
            phase = .inCall(call)
        case .message(let message):
            guard case .inCall(let call) = phase, call.callSid == message.callSid else { return }
            await send(.message(message))
        case .ended(let callSid, let reason, let code):
            guard case .inCall(let call) = phase, call.callSid == callSid else { return }
            await send(.hangup(.init(callSid: callSid, reason: reason, code: code?.rawValue)))
            closeCall(call, timers: &timers)
        }
    }

    /// A call between clients ended here: its media closes and the session is ready again.
    mutating func closeCall(_ call: SignalingSession.ActiveCall, timers: inout TaskGroup<Void>) {
        if let ufrag = call.ufrag {
            let digits = edge.media.digits(localUfrag: ufrag)
            if !digits.isEmpty {
                logger.info("call digits", metadata: ["callSid": "\(call.callSid)", "role": "\(call.role.rawValue)", "digits": "\(digits)"])
            }
            // The leg's checks are still answered for a moment: a client that has not read the
            // hangup yet must not see its media refused first (and report 53405 for a rejection).
            edge.media.unlinkAll(localUfrag: ufrag)
            lingering.insert(ufrag)
            let inbox = inbox
            timers.addTask {
                try? await Task.sleep(for: SessionLoop.mediaLinger)
                if !Task.isCancelled { inbox.post(.mediaLingered(ufrag: ufrag)) }
            }
        }
        enter(.ready(call.claims))
    }
}

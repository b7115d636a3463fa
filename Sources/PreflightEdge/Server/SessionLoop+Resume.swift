import Foundation
import Logging
import PreflightCore
import Synchronization

extension SessionLoop {
    /// The connection was lost in a call without a hangup: the session (and its call's media)
    /// waits for the client to resume it on a new connection. A client that broke the protocol
    /// gets no second chance. What happens meanwhile (the other party's hangup) waits in the
    /// queue and is handled once the session is resumed.
    mutating func park(protocolError: Bool) async -> SignalingSession.Disposition {
        guard !protocolError, configuration.sessionResumeWindow > .zero, !resumeToken.isEmpty else { return .end }
        attachment?.ended.finish()
        logger.debug("signaling session parked", metadata: ["sessionId": "\(sessionId)"])
        guard let resumed = await edge.resumptions.park(
            sessionId: sessionId, token: resumeToken, events: inbox, until: .now + configuration.sessionResumeWindow)
        else {
            logger.info("signaling session not resumed in time", metadata: ["sessionId": "\(sessionId)"])
            attachment = nil
            ending = .connectionLost
            return .end
        }
        attachment = resumed
        outbound = resumed.outbound
        ending = .connectionLost
        // A new token for the next loss: the one just used opens nothing more.
        var random = SystemRandomNumberGenerator()
        resumeToken = SignalingSession.hex(&random, bytes: 16)
        edge.resumptions.attach(sessionId: sessionId, token: resumeToken, events: inbox)
        await send(.resumed(.init(sessionId: sessionId, callSid: phase.callSid, resumeToken: resumeToken)))
        return .proceed
    }

    /// `resume` as a connection's first message: this connection continues another session,
    /// its reader feeding that one.
    mutating func resumeOther(_ request: SignalingMessage.Resume) async -> SignalingSession.Disposition {
        let (ended, endedContinuation) = AsyncStream<Never>.makeStream()
        let reader = reader
        guard await edge.resumptions.resume(
            sessionId: request.sessionId, token: request.resumeToken,
            attachment: SessionResumptions.Attachment(outbound: outbound, ended: endedContinuation, reader: reader),
            redirect: { target in reader.target.withLock { $0 = target } })
        else {
            await fail(PreflightError(code: .sessionResumeRefused, message: "signaling: no session to resume with this id and token"))
            return .end
        }
        ending = .resumedOther(ended: ended)
        return .end
    }
}

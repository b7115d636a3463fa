import Logging
import PreflightCore

// What a session relays or records for its calls: Insights events, trickled candidates, the
// user-defined messages between the parties.
extension SignalingSessionMachine {
    /// `insights`: a party's events of a call, kept for `GET /v1/calls/{sid}/events`. Events of a
    /// call this identity was no party of, or beyond the limits of one message, are refused (70002).
    /// Events over the call's cap, the session's rate or the call's are dropped and counted
    /// (``CallEventLog``); the session goes on.
    mutating func record(_ insights: SignalingMessage.Insights, now: Double) {
        guard let claims = phase.claims else { return end() }
        guard insights.events.count <= SignalingMessage.Insights.maximumEvents, insights.events.allSatisfy(\.isWithinLimits) else {
            fail(
                PreflightError(
                    code: .malformed,
                    message: "insights: at most \(SignalingMessage.Insights.maximumEvents) events a message, names up to \(InsightsEvent.maximumNameLength) bytes, \(InsightsEvent.maximumPayloadFields) payload fields of \(InsightsEvent.maximumValueLength) bytes"),
                callSid: insights.callSid)
            return end()
        }
        guard append(insights.events, callSid: insights.callSid, claims: claims, now: now) else {
            fail(
                PreflightError(code: .malformed, message: "insights: \(UntrustedText.quoted(insights.callSid)) is not a call of this identity"),
                callSid: insights.callSid)
            return end()
        }
    }

    /// `candidates`: host candidates of a network that appeared during this session's call. They
    /// are recorded in the call's events (`ice-candidate`, as the client's own candidates, with
    /// `"trickled": "true"`), under the same caps as `insights`; nothing is sent to them (the
    /// media path moves only on a check that authenticates from it). Refused (70002) when they
    /// are not this session's current call's, too many, or not valid candidates; the session
    /// goes on.
    mutating func record(_ candidates: SignalingMessage.Candidates, now: Double) {
        guard let claims = phase.claims, case .inCall(let call) = phase, call.callSid == candidates.callSid, !call.isProbe else {
            return fail(
                PreflightError(code: .malformed, message: "candidates: \(UntrustedText.quoted(candidates.callSid)) is not this session's call"),
                callSid: candidates.callSid)
        }
        do throws(PreflightError) {
            try candidates.validate()
        } catch {
            return fail(error, callSid: candidates.callSid)
        }
        let timestamp = environment.unixMilliseconds()
        let events = candidates.candidates.map { candidate in
            InsightsEvent(.iceCandidate, "ice-candidate", timestamp: timestamp, payload: [
                "candidateType": candidate.type.rawValue, "protocol": candidate.transport.lowercased(), "ip": candidate.address,
                "port": "\(candidate.port)", "priority": "\(candidate.priority)", "isRemote": "false", "trickled": "true",
            ])
        }
        _ = append(events, callSid: candidates.callSid, claims: claims, now: now)
    }

    /// Appends a party's events to the call's log and the store (what the caps keep).
    /// - Returns: false when the call is not one of this identity.
    private mutating func append(_ events: [InsightsEvent], callSid: String, claims: AccessTokenClaims, now: Double) -> Bool {
        let identity = claims.grants.identity ?? ""
        guard let kept = environment.callEvents.append(
            events, callSid: callSid, account: claims.sub, identity: identity, receivedAt: environment.unixMilliseconds(),
            session: &insightsBucket, now: now)
        else { return false }
        let edge = configuration.edgeName
        environment.storeEvents(.init(
            callSid: callSid, account: claims.sub,
            events: kept.map {
                StoredCallEvent(party: $0.party, event: $0.event, receivedAt: $0.receivedAt, edge: edge, identity: identity)
            }))
        return true
    }

    /// `message`: a user-defined message for the other party of this session's call; the sender
    /// learns whether it went (`messageStatus`). Refused, and the session goes on: an `id` over
    /// 256 bytes (70002, the status carrying its first 256 bytes), a type other than
    /// `user-defined-message` (31210), content over 10 KB (31209), more than 10 in a minute
    /// (70107), no connected call between clients with that sid (31211).
    mutating func relay(_ message: SignalingMessage.Message, now: Double) {
        func status(_ code: PreflightError.Code?, _ reason: String?, id: String = message.id) -> SignalingMessage {
            .messageStatus(.init(callSid: message.callSid, id: id, code: code?.rawValue, reason: reason))
        }
        messageTimes.removeAll { now - $0 > Double(CallMessage.rateWindow) }
        guard message.id.utf8.count <= SignalingMessage.Message.maximumIdLength else {
            return outputs.append(.send(status(
                .malformed, "call message: the id is over \(SignalingMessage.Message.maximumIdLength) bytes",
                id: Self.prefix(message.id, bytes: SignalingMessage.Message.maximumIdLength))))
        }
        guard message.message.messageType == "user-defined-message" else {
            return outputs.append(.send(status(.callMessageTypeInvalid, "call message: the type must be user-defined-message")))
        }
        guard message.message.content.utf8.count <= CallMessage.maximumContentLength else {
            return outputs.append(.send(status(.callMessageTooLarge, "call message: content over \(CallMessage.maximumContentLength) bytes")))
        }
        guard messageTimes.count < CallMessage.maximumPerWindow else {
            return outputs.append(.send(status(.callMessageRateLimited, "call message: more than \(CallMessage.maximumPerWindow) in a minute")))
        }
        guard case .inCall(let call) = phase, call.callSid == message.callSid, call.application == nil,
            environment.calls.forward(message, from: sessionId)
        else {
            return outputs.append(.send(status(
                .callMessageUnexpectedState, "call message: no connected call between clients with this sid")))
        }
        messageTimes.append(now)
        outputs.append(.send(status(nil, nil)))
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
}

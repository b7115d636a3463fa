import Foundation
import PreflightModel
internal import PreflightCore
internal import PreflightNIO

extension CallRun {
    /// Feeds the call's state machine (which queues the Insights `connection` events it reports).
    /// A network change still waiting when the input ends the call is recorded with the call's
    /// end, before its result is in: whoever reads ``Call/networkChanges`` then finds it.
    @discardableResult
    mutating func feed(_ input: CallStateInput) -> CallTransition {
        var ending = networks
        let pending = ending.finish(now: Self.nowMilliseconds())
        let transition = call.apply(input, recordingAtTheEnd: pending)
        if let pending, transition.endsTheCall {
            networks = ending
            note(.networkInformation, "network-change", at: pending.timestamp, payload: pending.insightsPayload)
        }
        return transition
    }

    /// Queues an Insights event stamped now; it goes to the edge with the next flush.
    mutating func note(_ group: InsightsEvent.Group, _ name: String, at timestamp: Int64? = nil, payload: [String: String] = [:]) {
        insights.append(InsightsEvent(group, name, timestamp: timestamp ?? Self.nowMilliseconds(), payload: payload))
    }

    /// An ICE state change of the agent's timeline, and the peer connection's state that follows
    /// from it (the peer connection connects with ICE here: media starts on the selected pair).
    /// ICE `connected` is followed by `completed` at the same time: the edge is ICE-lite, so the
    /// client nominates, and once the pair it nominated is selected its one component has a
    /// nominated pair and nothing is left to check (RFC 8445 §8.1.2, the check list Completed).
    mutating func note(_ entry: ConnectionStateEvent) {
        // Candidates and the selected pair are posted with their payloads
        // (`note(candidates:remote:)`, `note(selected:)`): the timeline's own marks of them
        // would come twice, the second time empty.
        guard entry.group != .iceCandidate, let group = InsightsEvent.Group(rawValue: entry.group.rawValue) else { return }
        note(group, entry.name, at: entry.timestamp)
        guard entry.group == .iceConnectionState else { return }
        if entry.name == "connected" { note(.iceConnectionState, "completed", at: entry.timestamp) }
        let peer: String? = switch entry.name {
        case "new": "new"
        case "checking": "connecting"
        case "connected": "connected"
        case "disconnected": "disconnected"
        case "failed": "failed"
        case "closed": "closed"
        default: nil
        }
        if let peer { note(.peerConnectionState, peer, at: entry.timestamp) }
    }

    /// `network-information` / `network-change`: one change of the host's networks, what media
    /// used before and after, why, and the gap (``NetworkChangeRecord/insightsPayload``).
    mutating func note(_ record: NetworkChangeRecord) {
        call.handle.withLock { $0.networkChanges.append(record) }
        note(.networkInformation, "network-change", at: record.timestamp, payload: record.insightsPayload)
    }

    /// `ice-candidate` for each candidate of one side.
    mutating func note(candidates: [ICECandidate], remote: Bool) {
        for candidate in candidates {
            note(.iceCandidate, "ice-candidate", payload: [
                "candidateType": candidate.type.rawValue, "protocol": candidate.transport, "ip": candidate.address,
                "port": "\(candidate.port)", "priority": "\(candidate.priority)", "isRemote": "\(remote)",
            ])
        }
    }

    /// `selected-ice-candidate-pair`: the active local and remote candidates.
    mutating func note(selected pair: ICECandidatePairStats) {
        note(.iceCandidate, "selected-ice-candidate-pair", payload: [
            "localCandidateType": pair.localCandidate.candidateType.rawValue, "localIP": pair.localCandidate.ip,
            "localPort": "\(pair.localCandidate.port)", "localProtocol": pair.localCandidate.protocol,
            "remoteCandidateType": pair.remoteCandidate.candidateType.rawValue, "remoteIP": pair.remoteCandidate.ip,
            "remotePort": "\(pair.remoteCandidate.port)",
        ])
    }

    /// The warnings a sample raised and cleared, in their groups.
    mutating func note(_ update: WarningsUpdate) {
        insights.append(contentsOf: Self.insights(of: update))
    }

    /// The Insights events of the warnings a sample raised and cleared: the reference's
    /// `audio-level-warning-raised`/`-cleared` for the constant audio levels,
    /// `network-quality-warning-raised`/`-cleared` for the others; a raise carries its `values`
    /// and `threshold`.
    static func insights(of update: WarningsUpdate) -> [InsightsEvent] {
        let raised = update.raised.map { record in
            let audio = record.name.hasPrefix("constant-audio")
            return InsightsEvent(
                audio ? .audioLevelWarningRaised : .networkQualityWarningRaised, record.name, timestamp: record.timestamp,
                payload: ["values": record.values, "threshold": record.threshold])
        }
        let cleared = update.cleared.map { record in
            let audio = record.name.hasPrefix("constant-audio")
            return InsightsEvent(audio ? .audioLevelWarningCleared : .networkQualityWarningCleared, record.name, timestamp: record.timestamp)
        }
        return raised + cleared
    }

    /// Sends what is queued, once the edge has named the call.
    mutating func flushInsights() async {
        insights.append(contentsOf: call.takeInsights())
        guard let callSid, !insights.isEmpty else { return }
        // The call's own events and the run's, in the order they happened.
        let events = insights.enumerated().sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }.map(\.element)
        insights.removeAll()
        var start = 0
        while start < events.count {
            let end = min(start + SignalingMessage.Insights.maximumEvents, events.count)
            try? await signaling.send(.insights(.init(callSid: callSid, events: Array(events[start..<end]))))
            start = end
        }
    }
}

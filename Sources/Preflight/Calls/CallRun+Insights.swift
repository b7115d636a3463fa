import Foundation
import PreflightModel
internal import PreflightCore
internal import PreflightNIO

extension CallRun {
    /// Feeds the call's state machine (which queues the Insights `connection` events it reports).
    @discardableResult
    func feed(_ input: CallStateInput) -> CallTransition {
        call.apply(input)
    }

    /// Queues an Insights event stamped now; it goes to the edge with the next flush.
    mutating func note(_ group: InsightsEvent.Group, _ name: String, at timestamp: Int64? = nil, payload: [String: String] = [:]) {
        insights.append(InsightsEvent(group, name, timestamp: timestamp ?? Self.nowMilliseconds(), payload: payload))
    }

    /// An ICE state change of the agent's timeline, and the peer connection's state that follows
    /// from it (the peer connection connects with ICE here: media starts on the selected pair).
    mutating func note(_ entry: ConnectionStateEvent) {
        guard let group = InsightsEvent.Group(rawValue: entry.group.rawValue) else { return }
        note(group, entry.name, at: entry.timestamp)
        guard entry.group == .iceConnectionState else { return }
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
        for record in update.raised {
            let audio = record.name.hasPrefix("constant-audio")
            note(audio ? .audioLevelWarningRaised : .networkQualityWarningRaised, record.name, at: record.timestamp, payload: [
                "values": record.values, "threshold": record.threshold,
            ])
        }
        for record in update.cleared {
            let audio = record.name.hasPrefix("constant-audio")
            note(audio ? .audioLevelWarningCleared : .networkQualityWarningCleared, record.name, at: record.timestamp)
        }
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
